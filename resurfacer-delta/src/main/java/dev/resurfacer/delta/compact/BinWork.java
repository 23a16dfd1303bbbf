package dev.resurfacer.delta.compact;

import dev.resurfacer.content.DigestScratch;
import dev.resurfacer.content.VerificationCpu;
import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import java.util.List;
import java.util.Map;

/**
 * What a runner needs to rewrite one bin of a table read at one version.
 *
 * @param scanFiles Kernel's scan file row of every live file, by its log path
 * @param txnState the write transaction's state (target directory, physical partition values)
 * @param partition the bin's partition values by logical column name
 * @param columns the data columns, logical and as data files hold them
 * @param statsColumns the physical leaf columns new files carry stats for
 * @param columnMapped whether the table maps its columns to physical names
 * @param verificationCpu where the run's content verification adds up the CPU time its reads take
 */
record BinWork(
    DeltaTable table,
    Engine engine,
    Row scanState,
    Map<String, Row> scanFiles,
    Row txnState,
    Map<String, Literal> partition,
    DataColumns columns,
    List<Column> statsColumns,
    boolean columnMapped,
    List<String> zOrderColumns,
    long targetFileSize,
    CompactionOptions options,
    DigestScratch.Pools digests,
    VerificationCpu verificationCpu) {

  /**
   * Files fingerprinted at once: one per core (Kernel's reader decodes a file on one thread), at
   * most one per 512 MB of heap (a reader holds a row group, up to 128 MB as Spark writes them, and
   * a bin's input and output are read at once).
   */
  int verifyThreads() {
    return (int) Math.max(
        1,
        Math.min(
            Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 29));
  }
}
