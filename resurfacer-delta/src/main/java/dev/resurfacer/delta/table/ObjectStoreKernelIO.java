package dev.resurfacer.delta.table;

import io.delta.kernel.defaults.engine.fileio.FileIO;
import io.delta.kernel.defaults.engine.fileio.InputFile;
import io.delta.kernel.defaults.engine.fileio.OutputFile;
import io.delta.kernel.defaults.engine.fileio.PositionOutputStream;
import io.delta.kernel.defaults.engine.fileio.SeekableInputStream;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.FileStatus;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kernel's {@link FileIO} on an object store (S3 or Azure Blob) through its SDK, so Kernel's JSON and
 * Parquet handlers, log replay and commits work on {@code s3://} and {@code abfss://} tables without
 * hadoop-aws or hadoop-azure. Paths are Kernel's (Hadoop-style, {@code s3://bucket/key},
 * {@code abfss://container@account.dfs.…/key}, unescaped). A log entry
 * ({@link OutputFile#writeAtomically} without overwrite) is created by conditional PUT, or — only under {@link CommitSafety#SINGLE_WRITER} —
 * by a check-then-put that is safe only while this process is the table's one writer.
 */
final class ObjectStoreKernelIO implements FileIO {
  private final ObjectStore s3;
  private final Map<String, String> conf;
  private final java.util.function.Supplier<CommitSafety> safety;

  /** How log entries are created. */
  enum CommitSafety {
    /** conditional PUT, measured to be honoured by the store */
    CONDITIONAL_PUT,
    /** check then put: the owner declared one writer ({@code s3.single-writer: true}) */
    SINGLE_WRITER,
    /** the store ignores conditional PUTs and nobody declared one writer: creating a log entry is refused */
    UNSAFE
  }

  ObjectStoreKernelIO(
      ObjectStore s3, Map<String, String> conf, java.util.function.Supplier<CommitSafety> safety) {
    this.s3 = s3;
    this.conf = Map.copyOf(conf);
    this.safety = safety;
  }

  record Location(String scheme, String bucket, String key) {
    static Location of(String path) {
      int sep = path.indexOf("://");
      if (sep < 0) {
        throw new IllegalArgumentException("not an object store path: " + path);
      }
      String rest = path.substring(sep + 3);
      int slash = rest.indexOf('/');
      return new Location(
          path.substring(0, sep),
          slash < 0 ? rest : rest.substring(0, slash),
          slash < 0 ? "" : rest.substring(slash + 1));
    }

    String path(String otherKey) {
      return scheme + "://" + bucket + "/" + otherKey;
    }
  }

  /** Files in the directory of {@code filePath} whose names sort at or after its name, as a log store lists. */
  @Override
  public CloseableIterator<FileStatus> listFrom(String filePath) throws IOException {
    Location l = Location.of(filePath);
    int slash = l.key().lastIndexOf('/');
    String dir = slash < 0 ? "" : l.key().substring(0, slash + 1);
    List<FileStatus> out = new ArrayList<>();
    boolean[] any = {false};
    s3.list(l.bucket(), dir, Optional.of("/"), o -> {
      any[0] = true;
      if (o.key().compareTo(l.key()) >= 0) {
        out.add(FileStatus.of(l.path(o.key()), o.size(), o.modificationTime()));
      }
    });
    if (!any[0]) {
      throw new FileNotFoundException("no such directory: " + l.path(dir));
    }
    return dev.resurfacer.delta.kernel.KernelIterators.of(out);
  }

  @Override
  public FileStatus getFileStatus(String path) throws IOException {
    Location l = Location.of(path);
    var h = s3.head(l.bucket(), l.key()).orElseThrow(() -> new FileNotFoundException(path));
    return FileStatus.of(path, h.size(), h.modificationTime());
  }

  @Override
  public String resolvePath(String path) {
    return path;
  }

  /** Object stores have no directories. */
  @Override
  public boolean mkdirs(String path) {
    return true;
  }

  @Override
  public InputFile newInputFile(String path, long size) {
    Location l = Location.of(path);
    // Kernel passes -1 when it does not know the size (deletion vector files), and 0 for
    // _last_checkpoint
    // (FileStatus.of(path, 0, 0)): a length of 0 taken as known reads nothing, Kernel then retries,
    // sleeps
    // and lists the log from version 0 on every snapshot
    long fileSize = size > 0 ? size : -1;
    return new InputFile() {
      /** Unknown: a HEAD tells. */
      @Override
      public long length() throws IOException {
        return fileSize >= 0 ? fileSize : getFileStatus(path).getSize();
      }

      @Override
      public String path() {
        return path;
      }

      @Override
      public SeekableInputStream newStream() {
        return new RangedStream(s3, l, fileSize);
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String path) {
    Location l = Location.of(path);
    return new OutputFile() {
      @Override
      public String path() {
        return path;
      }

      /** Spooled to a local file, uploaded on close (a data file or checkpoint: its name is new each time). */
      @Override
      public PositionOutputStream create(boolean putIfAbsent) throws IOException {
        Path spool = Files.createTempFile("resurfacer-s3-", ".part");
        OutputStream out = new BufferedOutputStream(Files.newOutputStream(spool));
        return new PositionOutputStream() {
          private long pos;
          private boolean closed;

          @Override
          public long getPos() {
            return pos;
          }

          @Override
          public void write(int b) throws IOException {
            out.write(b);
            pos++;
          }

          @Override
          public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            pos += len;
          }

          @Override
          public void flush() throws IOException {
            out.flush();
          }

          @Override
          public void close() throws IOException {
            if (closed) {
              return;
            }
            closed = true;
            try {
              out.close();
              if (putIfAbsent) {
                createEntry(l, spool);
              } else {
                s3.put(l.bucket(), l.key(), spool);
              }
            } finally {
              Files.deleteIfExists(spool);
            }
          }
        };
      }

      @Override
      public void writeAtomically(CloseableIterator<String> data, boolean overwrite)
          throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (data) {
          while (data.hasNext()) {
            bytes.write(data.next().getBytes(StandardCharsets.UTF_8));
            bytes.write('\n');
          }
        }
        if (overwrite) {
          s3.put(l.bucket(), l.key(), bytes.toByteArray());
        } else {
          byte[] content = bytes.toByteArray();
          createEntry(l, content);
        }
      }
    };
  }

  private void createEntry(Location l, byte[] content) throws IOException {
    switch (checkedSafety(l)) {
      case CONDITIONAL_PUT -> s3.putIfAbsent(l.bucket(), l.key(), content);
      case SINGLE_WRITER -> s3.put(l.bucket(), l.key(), content);
      case UNSAFE -> throw new IllegalStateException();
    }
  }

  private void createEntry(Location l, Path content) throws IOException {
    switch (checkedSafety(l)) {
      case CONDITIONAL_PUT -> s3.putIfAbsent(l.bucket(), l.key(), content);
      case SINGLE_WRITER -> s3.put(l.bucket(), l.key(), content);
      case UNSAFE -> throw new IllegalStateException();
    }
  }

  /** The safety of creating {@code l}: a refusal when unsafe, and under one writer, the check for an existing entry. */
  private CommitSafety checkedSafety(Location l) throws IOException {
    CommitSafety s = safety.get();
    if (s == CommitSafety.UNSAFE) {
      throw new IOException(ObjectStorage.unsafeCommits(s3, l.path(l.key())));
    }
    if (s == CommitSafety.SINGLE_WRITER && s3.head(l.bucket(), l.key()).isPresent()) {
      throw new FileAlreadyExistsException(l.path(l.key()));
    }
    return s;
  }

  @Override
  public boolean delete(String path) throws IOException {
    Location l = Location.of(path);
    return s3.delete(l.bucket(), l.key());
  }

  @Override
  public Optional<String> getConf(String key) {
    return Optional.ofNullable(conf.get(key));
  }

  @Override
  public void copyFileAtomically(String from, String to, boolean overwrite) throws IOException {
    Location src = Location.of(from);
    byte[] content;
    try (InputStream in = s3.read(src.bucket(), src.key(), 0)) {
      content = in.readAllBytes();
    }
    Location dst = Location.of(to);
    if (overwrite) {
      s3.put(dst.bucket(), dst.key(), content);
    } else {
      createEntry(dst, content);
    }
  }

  /** A seekable read: one ranged GET from the position onwards, reopened after a seek; a negative length is unknown. */
  private static final class RangedStream extends SeekableInputStream {
    private final ObjectStore s3;
    private final Location l;
    private final long length;
    private long pos;
    private InputStream in;

    RangedStream(ObjectStore s3, Location l, long length) {
      this.s3 = s3;
      this.l = l;
      this.length = length;
    }

    private InputStream stream() throws IOException {
      if (in == null) {
        in = s3.read(l.bucket(), l.key(), pos);
      }
      return in;
    }

    @Override
    public int read() throws IOException {
      if (length >= 0 && pos >= length) {
        return -1;
      }
      int b = stream().read();
      if (b >= 0) {
        pos++;
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      if (len == 0) {
        return 0;
      }
      if (length >= 0 && pos >= length) {
        return -1;
      }
      int n = stream().read(b, off, length < 0 ? len : (int) Math.min(len, length - pos));
      if (n > 0) {
        pos += n;
      }
      return n;
    }

    @Override
    public long getPos() {
      return pos;
    }

    @Override
    public void seek(long newPos) throws IOException {
      if (newPos == pos) {
        return;
      }
      closeStream();
      pos = newPos;
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
      int done = 0;
      while (done < len) {
        int n = read(b, off + done, len - done);
        if (n < 0) {
          throw new EOFException("end of " + l.path(l.key()) + " after " + pos + " bytes");
        }
        done += n;
      }
    }

    private void closeStream() throws IOException {
      if (in != null) {
        if (in instanceof software.amazon.awssdk.core.ResponseInputStream<?> r) {
          r.abort();
        }
        in.close();
        in = null;
      }
    }

    @Override
    public void close() throws IOException {
      closeStream();
    }
  }
}
