package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.EOFException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.SeekableInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The positional reader gives the bytes parquet-java's own local file gives, at every position, and stops at the end. */
class LocalParquetFileTest {
  @TempDir
  Path dir;

  @Test
  void readsWhatParquetJavasLocalFileReadsAndRefusesToReadPastTheEnd() throws Exception {
    byte[] content = new byte[3 * 1024 * 1024 + 17];
    new Random(11).nextBytes(content);
    Path file = Files.write(dir.resolve("f.parquet"), content);
    LocalParquetFile ours = new LocalParquetFile(file);
    assertThat(ours.getLength()).isEqualTo(new LocalInputFile(file).getLength());

    try (SeekableInputStream in = ours.newStream();
        SeekableInputStream theirs = new LocalInputFile(file).newStream()) {
      long[] positions = {0, 1, 8191, 8192, 1 << 20, content.length - 4096};
      for (long p : positions) {
        in.seek(p);
        theirs.seek(p);
        ByteBuffer heap = ByteBuffer.allocate(4096);
        byte[] expected = new byte[4096];
        in.readFully(heap);
        theirs.readFully(expected);
        assertThat(heap.array()).isEqualTo(expected);
        assertThat(in.getPos()).isEqualTo(p + 4096);
        assertThat(in.read())
            .isEqualTo(p + 4096 < content.length ? content[(int) p + 4096] & 0xff : -1);
      }
      in.seek(0);
      byte[] all = new byte[content.length];
      in.readFully(all, 0, all.length);
      assertThat(Arrays.equals(all, content)).isTrue();
      assertThat(in.read()).isEqualTo(-1);

      in.seek(content.length - 10);
      assertThatThrownBy(() -> in.readFully(new byte[11])).isInstanceOf(EOFException.class);
    }
  }
}
