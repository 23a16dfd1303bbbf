package dev.resurfacer.content;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.SeekableInputStream;

/**
 * A local Parquet file read by positional reads straight into the reader's buffers. parquet-java's own
 * {@code LocalInputFile} reads each column chunk into a new array and copies it into the buffer (and
 * {@code RandomAccessFile} mallocs and copies once more under it): a verified compaction read every
 * byte three times over and page-faulted the native buffers in again per chunk (docs/benchmarks.md).
 */
public final class LocalParquetFile implements InputFile {
  private final Path path;

  public LocalParquetFile(Path path) {
    this.path = path;
  }

  @Override
  public long getLength() throws IOException {
    return Files.size(path);
  }

  @Override
  public SeekableInputStream newStream() throws IOException {
    return new Stream(FileChannel.open(path, StandardOpenOption.READ));
  }

  @Override
  public String toString() {
    return path.toString();
  }

  static final class Stream extends SeekableInputStream {
    /**
     * The most a heap buffer is read by one call: the JDK reads a heap buffer through a temporary
     * direct buffer of the call's size, kept per thread, so larger calls made (and zeroed) a new one
     * at each new largest read (a row group of a rewrite's output is megabytes).
     */
    private static final int PIECE = 256 << 10;

    private final FileChannel channel;
    private long position;

    Stream(FileChannel channel) {
      this.channel = channel;
    }

    /** The open file's length. */
    long length() throws IOException {
      return channel.size();
    }

    @Override
    public long getPos() {
      return position;
    }

    @Override
    public void seek(long newPos) {
      position = newPos;
    }

    @Override
    public int read() throws IOException {
      ByteBuffer one = ByteBuffer.allocate(1);
      return read(one) <= 0 ? -1 : one.get(0) & 0xff;
    }

    @Override
    public int read(byte[] bytes, int start, int len) throws IOException {
      return len == 0 ? 0 : read(ByteBuffer.wrap(bytes, start, len));
    }

    @Override
    public int read(ByteBuffer buf) throws IOException {
      if (!buf.hasRemaining()) {
        return 0;
      }
      int n;
      if (!buf.isDirect() && buf.remaining() > PIECE) {
        int limit = buf.limit();
        buf.limit(buf.position() + PIECE);
        try {
          n = channel.read(buf, position);
        } finally {
          buf.limit(limit);
        }
      } else {
        n = channel.read(buf, position);
      }
      if (n > 0) {
        position += n;
      }
      return n;
    }

    @Override
    public void readFully(byte[] bytes) throws IOException {
      readFully(ByteBuffer.wrap(bytes));
    }

    @Override
    public void readFully(byte[] bytes, int start, int len) throws IOException {
      readFully(ByteBuffer.wrap(bytes, start, len));
    }

    @Override
    public void readFully(ByteBuffer buf) throws IOException {
      while (buf.hasRemaining()) {
        if (read(buf) < 0) {
          throw new EOFException(
              "reached the end of the file with " + buf.remaining() + " bytes left to read");
        }
      }
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
