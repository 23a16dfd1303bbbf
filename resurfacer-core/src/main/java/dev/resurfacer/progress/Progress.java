package dev.resurfacer.progress;

/**
 * Where a long operation reports how far it is: compaction groups, expiry and orphan deletes, an
 * orphan listing, the tables and operations of a maintenance run. A library caller gets
 * {@link #NONE} unless it passes its own; the command line shows a bar on a terminal.
 *
 * <pre>
 * try (Progress.Task task = progress.start("expire shop.orders: delete", "files", files.size(), totalBytes)) {
 *   for (...) { delete(f); task.advance(1, f.size()); }
 * }
 * </pre>
 *
 * Implementations must accept calls from several threads at once (compaction groups run in parallel).
 */
public interface Progress {
  /** Reports nothing. */
  Progress NONE = (name, unit, total, totalBytes) -> Task.NONE;

  /**
   * Starts a task.
   *
   * @param name what is being done, e.g. {@code "compact shop.orders"}
   * @param unit what {@code total} counts, e.g. {@code "files"} or {@code "groups"}
   * @param total how many units the task has, or {@link #UNKNOWN} (a listing)
   * @param totalBytes the bytes those units carry, or {@link #UNKNOWN}
   */
  Task start(String name, String unit, long total, long totalBytes);

  long UNKNOWN = -1;

  /** One running task; closing it says it is over (finished or abandoned). */
  interface Task extends AutoCloseable {
    Task NONE = new Task() {
      @Override
      public void advance(long units, long bytes) {}

      @Override
      public void note(String text) {}

      @Override
      public void close() {}
    };

    /** {@code units} more are done, carrying {@code bytes} (0 when not counted). */
    void advance(long units, long bytes);

    /** What is being worked on now, e.g. the current table or partition. */
    void note(String text);

    @Override
    void close();
  }
}
