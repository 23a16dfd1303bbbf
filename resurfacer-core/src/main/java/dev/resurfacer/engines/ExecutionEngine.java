package dev.resurfacer.engines;

import dev.resurfacer.maintain.OperationExecutor;
import java.util.List;

/**
 * Who executes maintenance: this JVM (the local engine) or a system the user already runs (Spark,
 * Trino). The format ({@link dev.resurfacer.maintain.TableFormat}) lists, opens and measures tables; an
 * execution engine supplies the executors that act on them. Whatever the engine, preview, fences and
 * verification stay ours: its executors preview with the format's own planners and refuse what they
 * cannot do faithfully.
 */
public interface ExecutionEngine extends AutoCloseable, NamedEngine {
  /**
   * The executors this engine runs for tables of {@code format} whose handle is {@code handleType}
   * (for Iceberg, {@code dev.resurfacer.iceberg.maintain.IcebergTable}). Empty for the local engine,
   * which runs the format's built-in executors. An operation with no executor here is refused with
   * its capability's note.
   */
  <T> List<OperationExecutor<?, T>> executors(String format, Class<T> handleType);

  @Override
  default void close() {}
}
