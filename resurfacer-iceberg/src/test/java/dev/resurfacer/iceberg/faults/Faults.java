package dev.resurfacer.iceberg.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.encryption.EncryptionManager;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.LocationProvider;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A table whose FileIO and commits misbehave on purpose: reads of matching files fail, writes of
 * matching files fail half-way, deletes fail, listings stop part-way, and commits fail outright or
 * succeed and then report an unknown state (a timeout after the catalog applied the swap).
 */
final class Faults implements SupportsPrefixOperations {
  enum Commit {
    OK,
    FAIL,
    UNKNOWN_AFTER_SUCCESS
  }

  private final FileIO delegate;
  Predicate<String> failReads = p -> false;
  Predicate<String> failWrites = p -> false;
  boolean failDeletes;
  int listLimit = Integer.MAX_VALUE;
  Commit commit = Commit.OK;
  final AtomicInteger injected = new AtomicInteger();

  private Faults(FileIO delegate) {
    this.delegate = delegate;
  }

  /** The same table as {@code table} (same catalog entry), seen through a faulty FileIO and commit path. */
  static Table wrap(Table table, Faults[] out) {
    TableOperations real = ((HasTableOperations) table).operations();
    Faults faults = new Faults(real.io());
    out[0] = faults;
    return new BaseTable(new FaultyOps(real, faults), table.name());
  }

  private RuntimeException inject(String what) {
    injected.incrementAndGet();
    return new UncheckedIOException(new IOException("injected fault: " + what));
  }

  @Override
  public InputFile newInputFile(String path) {
    return failReads.test(path)
        ? failingInput(delegate.newInputFile(path))
        : delegate.newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return failReads.test(path)
        ? failingInput(delegate.newInputFile(path, length))
        : delegate.newInputFile(path, length);
  }

  private InputFile failingInput(InputFile real) {
    return new InputFile() {
      public long getLength() {
        return real.getLength();
      }

      public SeekableInputStream newStream() {
        throw inject("read " + real.location());
      }

      public String location() {
        return real.location();
      }

      public boolean exists() {
        return real.exists();
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile real = delegate.newOutputFile(path);
    if (!failWrites.test(path)) {
      return real;
    }
    return new OutputFile() {
      public PositionOutputStream create() {
        return halfWay(real.create());
      }

      public PositionOutputStream createOrOverwrite() {
        return halfWay(real.createOrOverwrite());
      }

      public String location() {
        return real.location();
      }

      public InputFile toInputFile() {
        return real.toInputFile();
      }
    };
  }

  /** Writes the first bytes for real, then fails: a torn file is left on storage. */
  private PositionOutputStream halfWay(PositionOutputStream out) {
    return new PositionOutputStream() {
      public long getPos() throws IOException {
        return out.getPos();
      }

      public void write(int b) throws IOException {
        check(1);
        out.write(b);
      }

      public void write(byte[] b, int off, int len) throws IOException {
        check(len);
        out.write(b, off, len);
      }

      private void check(int len) throws IOException {
        if (out.getPos() + len > 64) {
          injected.incrementAndGet();
          out.flush();
          throw new IOException("injected fault: write failed half-way");
        }
      }

      public void flush() throws IOException {
        out.flush();
      }

      public void close() throws IOException {
        out.close();
      }
    };
  }

  @Override
  public void deleteFile(String path) {
    if (failDeletes) {
      throw inject("delete " + path);
    }
    delegate.deleteFile(path);
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Iterable<FileInfo> real = ((SupportsPrefixOperations) delegate).listPrefix(prefix);
    return () -> new java.util.Iterator<>() {
      final java.util.Iterator<FileInfo> it = real.iterator();
      int served;

      public boolean hasNext() {
        if (served >= listLimit && it.hasNext()) {
          throw inject("listing " + prefix + " broke off after " + served + " entries");
        }
        return it.hasNext();
      }

      public FileInfo next() {
        served++;
        return it.next();
      }
    };
  }

  @Override
  public void deletePrefix(String prefix) {
    throw new UnsupportedOperationException("never delete a prefix");
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }

  private record FaultyOps(TableOperations real, Faults faults) implements TableOperations {
    public TableMetadata current() {
      return real.current();
    }

    public TableMetadata refresh() {
      return real.refresh();
    }

    public FileIO io() {
      return faults;
    }

    public EncryptionManager encryption() {
      return real.encryption();
    }

    public String metadataFileLocation(String fileName) {
      return real.metadataFileLocation(fileName);
    }

    public LocationProvider locationProvider() {
      return real.locationProvider();
    }

    public long newSnapshotId() {
      return real.newSnapshotId();
    }

    public void commit(TableMetadata base, TableMetadata metadata) {
      switch (faults.commit) {
        case FAIL -> {
          faults.injected.incrementAndGet();
          throw new CommitFailedException("injected fault: commit rejected");
        }
        case UNKNOWN_AFTER_SUCCESS -> {
          real.commit(base, metadata);
          faults.injected.incrementAndGet();
          throw new CommitStateUnknownException(
              new RuntimeException("injected fault: commit timed out"));
        }
        default -> real.commit(base, metadata);
      }
    }
  }
}
