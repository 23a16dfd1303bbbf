package dev.resurfacer.delta.log;

import dev.resurfacer.delta.table.DeltaTable;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.List;

/** Reads the {@code commitInfo} action of JSON commits with Kernel's JSON reader: who wrote a commit, and when. */
public final class CommitInfos {
  static final StructType SCHEMA = new StructType()
      .add(
          "commitInfo",
          new StructType()
              .add("timestamp", LongType.LONG)
              .add("engineInfo", StringType.STRING)
              .add("operation", StringType.STRING));

  /**
   * @param timestamp commitInfo's timestamp, or the commit file's modification time when it has none
   * @param engineInfo who wrote it (Kernel writes {@code Kernel-VERSION/ENGINE}); empty when unknown
   */
  public record CommitInfo(long version, long timestamp, String engineInfo, String operation) {}

  private CommitInfos() {}

  /** The commitInfo of each commit file, in the order given; a commit without one gets its file's time. */
  public static List<CommitInfo> read(DeltaTable table, List<LogFile> commits) {
    List<CommitInfo> out = new ArrayList<>();
    for (LogFile commit : commits) {
      CommitInfo[] found = {new CommitInfo(commit.version(), commit.modificationTime(), "", "")};
      LogActions.read(
          table,
          commit,
          SCHEMA,
          info -> found[0] = new CommitInfo(
              commit.version(),
              info.isNullAt(0) ? commit.modificationTime() : info.getLong(0),
              info.isNullAt(1) ? "" : info.getString(1),
              info.isNullAt(2) ? "" : info.getString(2)));
      out.add(found[0]);
    }
    return out;
  }
}
