package dev.resurfacer.delta.table;

import dev.resurfacer.storage.StorageFences;
import io.delta.kernel.Snapshot;
import io.delta.kernel.TableManager;
import io.delta.kernel.engine.Engine;
import java.nio.file.Path;

/**
 * One Delta table: the name it was asked for by and the storage holding it (local disk or S3).
 * {@link #latest()} loads the newest snapshot each time, so a caller that re-reads sees concurrent
 * commits.
 *
 * @param name a configured {@code namespace.table} name, or the location the user gave
 * @param fences the other tables (of either format) and protected files its vacuum must respect
 */
public record DeltaTable(String name, TableStorage storage, StorageFences fences)
    implements AutoCloseable {
  /** A table whose vacuum knows no other table but those it finds inside its own directory. */
  public DeltaTable(String name, TableStorage storage) {
    this(name, storage, StorageFences.none());
  }

  public DeltaTable withFences(StorageFences newFences) {
    return new DeltaTable(name, storage, newFences);
  }

  public Engine engine() {
    return storage.engine();
  }

  public Snapshot latest() {
    return TableManager.loadSnapshot(uri()).build(engine());
  }

  public Snapshot atVersion(long version) {
    return TableManager.loadSnapshot(uri()).atVersion(version).build(engine());
  }

  /** The table root as Kernel addresses it, with a trailing slash. */
  public String uri() {
    return storage.kernelRoot();
  }

  /** The directory of a table on local disk, as given; {@link IllegalStateException} for one on an object store. */
  public Path localRoot() {
    return local().directory();
  }

  /** The directory of a table on local disk with links resolved. */
  public Path localRealRoot() {
    return local().realDirectory();
  }

  private LocalStorage local() {
    if (storage instanceof LocalStorage l) {
      return l;
    }
    throw new IllegalStateException(name + " is not on local storage");
  }

  @Override
  public void close() {
    storage.close();
  }
}
