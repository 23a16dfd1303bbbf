package dev.resurfacer.delta.compact;

import java.util.Map;
import java.util.function.Predicate;

/**
 * Which partitions a compaction touches, decided on a file's partition values (as the log writes
 * them: strings, null for a null partition value). Exact: a partition either matches or it does not.
 *
 * @param text the filter as the user wrote it, for plans and reports
 */
public record PartitionFilter(String text, Predicate<Map<String, String>> matches) {
  public static final PartitionFilter ALL = new PartitionFilter(null, p -> true);

  public boolean all() {
    return text == null;
  }
}
