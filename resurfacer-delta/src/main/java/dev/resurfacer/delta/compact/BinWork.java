package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.data.Row;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.StructType;
import java.util.List;
import java.util.Map;

/**
 * What a runner needs to rewrite one bin of a table read at one version.
 *
 * @param scanFiles Kernel's scan file row of every live file, by its log path
 * @param txnState the write transaction's state (target directory, stats columns, physical names)
 * @param dataColumns the table's columns minus its partition columns, as data files hold them
 * @param dataSchema the schema of {@code dataColumns}
 * @param physicalDataSchema the same columns as data files hold them (physical names)
 */
record BinWork(DeltaTable table, Engine engine, Row scanState, Map<String, Row> scanFiles, Row txnState,
    Map<String, Literal> partition, List<String> dataColumns, StructType dataSchema, StructType physicalDataSchema, List<String> zOrderColumns, long targetFileSize,
    CompactionOptions options) {}
