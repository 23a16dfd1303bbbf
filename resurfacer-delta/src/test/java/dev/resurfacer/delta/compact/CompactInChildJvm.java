package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.table.DeltaTable;
import dev.resurfacer.delta.table.DeltaTables;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;

/**
 * Compacts a table in a JVM of its own, so a test can give it a heap smaller than the bin:
 * {@code CompactInChildJvm TABLE_DIR MEMORY_BYTES TARGET_BYTES RUNNER [ZORDER_COLUMN...]}. Prints the
 * plan's runner and the result; exits 0 only when every bin committed.
 */
public final class CompactInChildJvm {
  private CompactInChildJvm() {}

  public static void main(String[] args) {
    DeltaTable table = DeltaTables.open("big", args[0], Path.of("."));
    CompactionOptions options = new CompactionOptions(OptionalLong.of(Long.parseLong(args[2])), 0.3)
        .memory(Long.parseLong(args[1]))
        .runner(CompactionOptions.Runner.valueOf(args[3]))
        .zOrder(List.of(Arrays.copyOfRange(args, 4, args.length)));
    CompactionResult r =
        DeltaCompactor.execute(DeltaCompactor.plan(table, options), Clock.systemUTC());
    System.out.println(
        "runner=" + r.plan().runner() + " heap=" + Runtime.getRuntime().maxMemory() + " inputBytes="
            + r.plan().inputBytes() + " removed=" + r.removedFiles() + " added=" + r.addedFiles()
            + " rows=" + r.rows()
            + " failed=" + r.failedBins());
    System.exit(r.failedBins().isEmpty() && !r.committedVersions().isEmpty() ? 0 : 1);
  }
}
