package dev.resurfacer.iceberg.compact;

import java.nio.file.Path;
import java.util.List;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.actions.RewriteFileGroup;

/** Turns one planned file group into new data files holding exactly the group's live rows. Never commits. */
interface GroupRewriter {
  String name();

  List<DataFile> rewrite(Table table, RewriteFileGroup group, Settings settings) throws Exception;

  /**
   * What one group may use and produce: DuckDB's memory limit and threads, where it may spill and
   * stage files, the size at which output files roll over, and where content verification runs
   * its reads while the group is written.
   */
  /**
   * @param smallGroupBytes a group of at most this input takes the small path ({@link SmallGroups}); 0 never
   * @param verifying where content verification runs its reads
   * @param database the DuckDB database the run's big groups share; null gives each its own
   */
  record Settings(
      long memoryBytes,
      int threads,
      Path scratchDir,
      long targetFileSizeBytes,
      ResolvedOrdering ordering,
      long smallGroupBytes,
      java.util.concurrent.Executor verifying,
      DuckDbDatabase database,
      dev.resurfacer.content.DigestScratch.Pools digests) {
    /** The small path at its default bound, verification on the common pool: for callers that rewrite one group at a time. */
    Settings(
        long memoryBytes,
        int threads,
        Path scratchDir,
        long targetFileSizeBytes,
        ResolvedOrdering ordering) {
      this(
          memoryBytes,
          threads,
          scratchDir,
          targetFileSizeBytes,
          ordering,
          SmallGroups.MAX_BYTES,
          java.util.concurrent.ForkJoinPool.commonPool(),
          null,
          null);
    }
  }
}
