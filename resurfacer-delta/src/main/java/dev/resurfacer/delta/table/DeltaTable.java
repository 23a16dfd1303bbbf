package dev.resurfacer.delta.table;

import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import java.nio.file.Path;

/**
 * One Delta table on local storage: the name it was asked for by, its root directory and the Kernel
 * engine that reads it. {@link #latest()} loads the newest snapshot each time, so a caller that
 * re-reads sees concurrent commits.
 *
 * @param name a configured {@code namespace.table} name, or the location the user gave
 * @param root the table's directory as given (absolute, normalized)
 * @param realRoot the same directory with symbolic links resolved; listings start here
 * @param engine Kernel's engine for this table's storage
 */
public record DeltaTable(String name, Path root, Path realRoot, Engine engine) {

  public Snapshot latest() {
    return TableManager.loadSnapshot(uri()).build(engine);
  }

  public Snapshot atVersion(long version) {
    return TableManager.loadSnapshot(uri()).atVersion(version).build(engine);
  }

  /** The table root as Kernel addresses it: {@code file:} and the path, unencoded, with a trailing slash. */
  public String uri() {
    return TablePaths.kernelPath(root) + "/";
  }

  public Path logDir() {
    return root.resolve("_delta_log");
  }

  public TablePaths paths() {
    return new TablePaths(root, realRoot);
  }
}
