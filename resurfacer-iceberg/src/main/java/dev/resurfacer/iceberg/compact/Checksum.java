package dev.resurfacer.iceberg.compact;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.parquet.Parquet;

/**
 * An order-independent content checksum over every column: each row is rendered canonically and
 * hashed (MD5, first 64 bits: not for security, only well mixed); the checksum is the row count, the wrapping sum and the xor
 * of the row hashes. Equal multisets of rows give equal checksums in any order.
 */
record Checksum(long rows, long sum, long xor) {
  static Checksum ofTasks(Table table, List<FileScanTask> tasks, Schema schema) {
    Accumulator acc = new Accumulator();
    int width = schema.columns().size();
    for (FileScanTask task : tasks) {
      try (CloseableIterable<Record> rows = LiveRows.read(table, task, schema)) {
        // delete application may append columns it needed (such as _pos): checksum only the projection
        rows.forEach(r -> acc.add(r, width));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return acc.result();
  }

  static Checksum ofFiles(Table table, List<String> locations, Schema schema) {
    Accumulator acc = new Accumulator();
    // Row-lineage columns are only read from the file when the reader has an inherited value to
    // fall back on; the rewritten files carry explicit values, so any constant works here.
    Map<Integer, Object> lineage = Map.of(
        org.apache.iceberg.MetadataColumns.ROW_ID.fieldId(), 0L,
        org.apache.iceberg.MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.fieldId(), 0L);
    for (String location : locations) {
      try (CloseableIterable<Record> rows = Parquet.read(table.io().newInputFile(location))
          .project(schema)
          .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(schema, fileSchema, lineage))
          .build()) {
        rows.forEach(r -> acc.add(r, schema.columns().size()));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return acc.result();
  }

  static final class Accumulator {
    private long rows;
    private long sum;
    private long xor;
    private final java.security.MessageDigest md5 = md5();

    void add(Record r, int width) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < width; i++) {
        render(r.get(i), b);
        b.append('|');
      }
      long h = java.nio.ByteBuffer.wrap(md5.digest(b.toString().getBytes(StandardCharsets.UTF_8))).getLong();
      rows++;
      sum += h;
      xor ^= h;
    }

    private static java.security.MessageDigest md5() {
      try {
        return java.security.MessageDigest.getInstance("MD5");
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }

    Checksum result() {
      return new Checksum(rows, sum, xor);
    }
  }

  static void render(Object v, StringBuilder b) {
    if (v == null) {
      b.append("\u2400");
    } else if (v instanceof Record r) {
      b.append('{');
      for (int i = 0; i < r.size(); i++) {
        render(r.get(i), b);
        b.append('|');
      }
      b.append('}');
    } else if (v instanceof ByteBuffer buf) {
      ByteBuffer d = buf.duplicate();
      b.append("0x");
      while (d.hasRemaining()) {
        b.append(String.format("%02x", d.get()));
      }
    } else if (v instanceof byte[] bytes) {
      render(ByteBuffer.wrap(bytes), b);
    } else if (v instanceof List<?> list) {
      b.append('[');
      list.forEach(e -> {
        render(e, b);
        b.append(',');
      });
      b.append(']');
    } else if (v instanceof Map<?, ?> map) {
      // map entry order is not part of a map's content
      TreeMap<String, String> sorted = new TreeMap<>();
      map.forEach((k, val) -> {
        StringBuilder kb = new StringBuilder();
        render(k, kb);
        StringBuilder vb = new StringBuilder();
        render(val, vb);
        sorted.put(kb.toString(), vb.toString());
      });
      b.append(sorted);
    } else if (v instanceof java.math.BigDecimal d) {
      b.append(d.toPlainString());
    } else {
      b.append(v);
    }
  }
}
