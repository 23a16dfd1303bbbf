package dev.resurfacer.iceberg.orphans;

import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The table's real FileIO with faults injected into listings only: entries dropped (a partial
 * listing), locations rewritten (a store that names files differently), and a hook that runs when
 * a listing is exhausted (a writer committing between the listing and the metadata read).
 */
final class FaultyFileIO implements SupportsPrefixOperations, SupportsBulkOperations {
  private final FileIO delegate;
  private Predicate<String> drop = location -> false;
  private Function<String, String> rewrite = Function.identity();
  private Runnable afterListing = () -> {};
  private java.util.function.Consumer<String> onExists = location -> {};

  FaultyFileIO(FileIO delegate) {
    this.delegate = delegate;
  }

  FaultyFileIO dropping(Predicate<String> drop) {
    this.drop = drop;
    return this;
  }

  FaultyFileIO rewriting(Function<String, String> rewrite) {
    this.rewrite = rewrite;
    return this;
  }

  FaultyFileIO afterListing(Runnable hook) {
    this.afterListing = hook;
    return this;
  }

  /** Runs when a caller asks whether {@code location} exists (the version-hint lookup comes after both metadata reads). */
  FaultyFileIO onExists(java.util.function.Consumer<String> hook) {
    this.onExists = hook;
    return this;
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Iterable<FileInfo> real = ((SupportsPrefixOperations) delegate).listPrefix(prefix);
    return () -> new Iterator<>() {
      final Iterator<FileInfo> it = real.iterator();
      FileInfo next;
      boolean hookRan;

      @Override
      public boolean hasNext() {
        while (next == null && it.hasNext()) {
          FileInfo f = it.next();
          if (!drop.test(f.location())) {
            next = new FileInfo(rewrite.apply(f.location()), f.size(), f.createdAtMillis());
          }
        }
        if (next == null && !hookRan) {
          hookRan = true;
          afterListing.run();
        }
        return next != null;
      }

      @Override
      public FileInfo next() {
        if (!hasNext()) {
          throw new NoSuchElementException();
        }
        FileInfo f = next;
        next = null;
        return f;
      }
    };
  }

  @Override
  public void deletePrefix(String prefix) {
    throw new UnsupportedOperationException("remove-orphans must never delete a prefix");
  }

  @Override
  public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
    ((SupportsBulkOperations) delegate).deleteFiles(paths);
  }

  @Override
  public InputFile newInputFile(String path) {
    InputFile real = delegate.newInputFile(path);
    return new InputFile() {
      @Override
      public long getLength() {
        return real.getLength();
      }

      @Override
      public org.apache.iceberg.io.SeekableInputStream newStream() {
        return real.newStream();
      }

      @Override
      public String location() {
        return real.location();
      }

      @Override
      public boolean exists() {
        onExists.accept(path);
        return real.exists();
      }
    };
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return delegate.newInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return delegate.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    delegate.deleteFile(path);
  }

  @Override
  public Map<String, String> properties() {
    return delegate.properties();
  }
}
