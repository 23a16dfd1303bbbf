package dev.resurfacer.iceberg.storage;

import java.io.IOException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A {@code gs://} file whose streams end: GCSFileIO's stream (iceberg-gcp 1.11) answers the
 * one-byte {@code read()} at the end of an object with a byte instead of -1, and core's readers
 * that check they reached the end of a file of known length (a small file read whole) then fail.
 * The one-byte read goes through the array read, which does report the end.
 */
record GcsInputFile(InputFile file) implements InputFile {
  @Override
  public long getLength() {
    return file.getLength();
  }

  @Override
  public SeekableInputStream newStream() {
    return new Ending(file.newStream());
  }

  @Override
  public String location() {
    return file.location();
  }

  @Override
  public boolean exists() {
    return file.exists();
  }

  private static final class Ending extends SeekableInputStream {
    private final SeekableInputStream in;
    private final byte[] one = new byte[1];

    Ending(SeekableInputStream in) {
      this.in = in;
    }

    @Override
    public int read() throws IOException {
      int n;
      do {
        n = in.read(one, 0, 1);
      } while (n == 0);
      return n < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, len);
    }

    @Override
    public long getPos() throws IOException {
      return in.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      in.seek(newPos);
    }

    @Override
    public void close() throws IOException {
      in.close();
    }
  }
}
