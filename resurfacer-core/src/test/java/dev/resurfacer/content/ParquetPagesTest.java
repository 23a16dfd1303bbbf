package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.page.DataPage;
import org.apache.parquet.column.page.DataPageV1;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.column.page.PageReader;
import org.apache.parquet.format.AesGcmV1;
import org.apache.parquet.format.ColumnChunk;
import org.apache.parquet.format.ColumnMetaData;
import org.apache.parquet.format.ColumnOrder;
import org.apache.parquet.format.CompressionCodec;
import org.apache.parquet.format.DataPageHeader;
import org.apache.parquet.format.Encoding;
import org.apache.parquet.format.EncryptionAlgorithm;
import org.apache.parquet.format.FieldRepetitionType;
import org.apache.parquet.format.FileMetaData;
import org.apache.parquet.format.IndexPageHeader;
import org.apache.parquet.format.KeyValue;
import org.apache.parquet.format.PageEncodingStats;
import org.apache.parquet.format.PageHeader;
import org.apache.parquet.format.PageType;
import org.apache.parquet.format.RowGroup;
import org.apache.parquet.format.SchemaElement;
import org.apache.parquet.format.SortingColumn;
import org.apache.parquet.format.Statistics;
import org.apache.parquet.format.Type;
import org.apache.parquet.format.TypeDefinedOrder;
import org.apache.parquet.format.Util;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The digest's own footer and page-header reader, on files written here byte by byte with
 * parquet-format's Thrift classes: every optional field a writer may add (statistics, key-value
 * metadata, encoding stats, sort order, bloom filter offsets, page CRCs, an index page, page
 * statistics of kilobytes) is walked over, both ways of reading a file give the same pages, and what it does not read as parquet-java
 * would is refused.
 */
class ParquetPagesTest {
  private static final MessageType SCHEMA = MessageTypeParser.parseMessageType(
      "message m { required int64 id = 1; required binary name (STRING) = 2; }");

  @TempDir
  Path dir;

  @Test
  void everyOptionalFieldIsWalkedOverAndBothReadsGiveTheWrittenPages() throws IOException {
    Path file = write(dir.resolve("full.parquet"), meta -> {}, true);
    for (int whole : List.of(ParquetPages.WHOLE_FILE, 0)) {
      List<String> pages = new ArrayList<>();
      MessageType first = null;
      try (DigestScratch scratch = new DigestScratch(() -> null, whole)) {
        for (int open = 0; open < 2; open++) {
          try (ParquetPages p = ParquetPages.open(new LocalParquetFile(file), scratch)) {
            assertThat(p.schema()).isEqualTo(SCHEMA);
            if (open == 0) {
              first = p.schema();
            } else {
              assertThat(p.schema())
                  .as("a second file of one schema is not converted again")
                  .isSameAs(first);
            }
            PageReadStore g;
            while ((g = p.nextRowGroup()) != null) {
              try {
                for (ColumnDescriptor c : SCHEMA.getColumns()) {
                  PageReader r = g.getPageReader(c);
                  assertThat(r.readDictionaryPage()).isNull();
                  DataPage page;
                  while ((page = r.readPage()) != null) {
                    DataPageV1 v1 = (DataPageV1) page;
                    pages.add(c.getPath()[0] + " " + g.getRowCount() + " " + v1.getValueCount()
                        + " " + v1.getValueEncoding() + " " + hex(v1.getBytes().toByteArray()));
                  }
                }
              } finally {
                g.close();
              }
            }
          }
        }
      }
      List<String> expected = new ArrayList<>();
      for (int group = 0; group < 2; group++) {
        for (String column : List.of("id", "name")) {
          for (int page = 0; page < 2; page++) {
            expected.add(column + " 6 3 PLAIN " + hex(pageBytes(column, group, page)));
          }
        }
      }
      List<String> twice = new ArrayList<>(expected);
      twice.addAll(expected);
      assertThat(pages).as("reading whole files up to %d bytes", whole).isEqualTo(twice);
    }
  }

  @Test
  void anEncryptedFileOrAChunkInAnotherFileIsLeftToTheFormatsReader() throws IOException {
    Path encryptedFooter = write(dir.resolve("pare.parquet"), meta -> {}, true);
    byte[] b = Files.readAllBytes(encryptedFooter);
    System.arraycopy("PARE".getBytes(StandardCharsets.US_ASCII), 0, b, b.length - 4, 4);
    Files.write(encryptedFooter, b);
    assertThat(refusal(encryptedFooter)).isInstanceOf(PageHashes.Unreadable.class);

    Path plaintextFooter = write(
        dir.resolve("algorithm.parquet"),
        meta -> meta.setEncryption_algorithm(EncryptionAlgorithm.AES_GCM_V1(new AesGcmV1())),
        true);
    assertThat(refusal(plaintextFooter)).isInstanceOf(PageHashes.Unreadable.class);

    Path external = write(
        dir.resolve("external.parquet"),
        meta -> meta.getRow_groups().get(1).getColumns().get(0).setFile_path("other.parquet"),
        true);
    assertThat(refusal(external)).isInstanceOf(PageHashes.Unreadable.class);
  }

  @Test
  void aDamagedFileIsAnErrorNotADigest() throws IOException {
    Path truncated = write(dir.resolve("truncated.parquet"), meta -> {}, true);
    byte[] b = Files.readAllBytes(truncated);
    Files.write(truncated, java.util.Arrays.copyOf(b, b.length - 3));
    assertThat(refusal(truncated))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("no magic number");

    Path outside = write(
        dir.resolve("outside.parquet"),
        meta -> meta.getRow_groups()
            .get(1)
            .getColumns()
            .get(1)
            .getMeta_data()
            .setData_page_offset(1L << 40),
        true);
    assertThat(refusal(outside)).isInstanceOf(IOException.class).hasMessageContaining("outside");

    Path fewerValues = write(
        dir.resolve("values.parquet"),
        meta -> meta.getRow_groups().get(0).getColumns().get(0).getMeta_data().setNum_values(7),
        true);
    assertThat(refusal(fewerValues))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("ended before its values");
  }

  private Throwable refusal(Path file) {
    return org.assertj.core.api.Assertions.catchThrowable(() -> {
      try (DigestScratch scratch = new DigestScratch(() -> null);
          ParquetPages p = ParquetPages.open(new LocalParquetFile(file), scratch)) {
        PageReadStore g;
        while ((g = p.nextRowGroup()) != null) {
          for (ColumnDescriptor c : SCHEMA.getColumns()) {
            PageReader r = g.getPageReader(c);
            r.readDictionaryPage();
            while (r.readPage() != null) {}
          }
          g.close();
        }
      }
    });
  }

  /** Two row groups of six rows, each column chunk two plain pages of three values with an index page between. */
  private static Path write(Path file, Consumer<FileMetaData> change, boolean extras)
      throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write("PAR1".getBytes(StandardCharsets.US_ASCII));
    List<RowGroup> groups = new ArrayList<>();
    for (int group = 0; group < 2; group++) {
      List<ColumnChunk> chunks = new ArrayList<>();
      for (String column : List.of("id", "name")) {
        long start = out.size();
        for (int page = 0; page < 2; page++) {
          byte[] data = pageBytes(column, group, page);
          PageHeader h = new PageHeader(PageType.DATA_PAGE, data.length, data.length);
          DataPageHeader d = new DataPageHeader(3, Encoding.PLAIN, Encoding.RLE, Encoding.RLE);
          if (extras) {
            h.setCrc(0x1234567);
            d.setStatistics(new Statistics()
                // a second page's header of kilobytes, more than is first copied to parse it
                .setMin_value(page == 1 ? new byte[3000] : new byte[] {1, 2, 3})
                .setMax_value(new byte[] {9, 9})
                .setNull_count(0)
                .setDistinct_count(3)
                .setIs_min_value_exact(true));
          }
          h.setData_page_header(d);
          Util.writePageHeader(h, out);
          out.write(data);
          if (extras && page == 0) {
            PageHeader index = new PageHeader(PageType.INDEX_PAGE, 2, 2);
            index.setIndex_page_header(new IndexPageHeader());
            Util.writePageHeader(index, out);
            out.write(new byte[] {42, 43});
          }
        }
        long size = out.size() - start;
        ColumnMetaData m = new ColumnMetaData(
            column.equals("id") ? Type.INT64 : Type.BYTE_ARRAY,
            List.of(Encoding.PLAIN, Encoding.RLE),
            List.of(column),
            CompressionCodec.UNCOMPRESSED,
            6,
            size,
            size,
            start);
        if (extras) {
          m.setKey_value_metadata(List.of(new KeyValue("k").setValue("v")));
          m.setStatistics(new Statistics().setMin(new byte[] {0}).setMax(new byte[] {1}));
          m.setEncoding_stats(
              List.of(new PageEncodingStats(PageType.DATA_PAGE, Encoding.PLAIN, 2)));
          m.setBloom_filter_offset(start);
          m.setBloom_filter_length(0);
          m.setDictionary_page_offset(0);
        }
        ColumnChunk chunk = new ColumnChunk(start);
        chunk.setMeta_data(m);
        chunks.add(chunk);
      }
      RowGroup g = new RowGroup(chunks, 100, 6);
      if (extras) {
        g.setSorting_columns(List.of(new SortingColumn(0, false, true)));
        g.setOrdinal((short) group);
      }
      groups.add(g);
    }
    List<SchemaElement> schema = List.of(
        new SchemaElement("m").setNum_children(2),
        new SchemaElement("id")
            .setType(Type.INT64)
            .setRepetition_type(FieldRepetitionType.REQUIRED)
            .setField_id(1),
        new SchemaElement("name")
            .setType(Type.BYTE_ARRAY)
            .setRepetition_type(FieldRepetitionType.REQUIRED)
            .setField_id(2)
            .setConverted_type(org.apache.parquet.format.ConvertedType.UTF8)
            .setLogicalType(org.apache.parquet.format.LogicalType.STRING(
                new org.apache.parquet.format.StringType())));
    FileMetaData meta = new FileMetaData(1, schema, 12, groups);
    if (extras) {
      meta.setKey_value_metadata(List.of(new KeyValue("writer").setValue("a test")));
      meta.setCreated_by("resurfacer tests");
      ColumnOrder order = new ColumnOrder();
      order.setTYPE_ORDER(new TypeDefinedOrder());
      meta.setColumn_orders(List.of(order, order));
    }
    change.accept(meta);
    ByteArrayOutputStream footer = new ByteArrayOutputStream();
    Util.writeFileMetaData(meta, footer);
    out.write(footer.toByteArray());
    out.write(ByteBuffer.allocate(4)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(footer.size())
        .array());
    out.write("PAR1".getBytes(StandardCharsets.US_ASCII));
    Files.write(file, out.toByteArray());
    return file;
  }

  private static byte[] pageBytes(String column, int group, int page) {
    ByteBuffer b = ByteBuffer.allocate(64).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < 3; i++) {
      long row = group * 6L + page * 3L + i;
      if (column.equals("id")) {
        b.putLong(row * 1001);
      } else {
        byte[] s = ("name-" + row).getBytes(StandardCharsets.UTF_8);
        b.putInt(s.length).put(s);
      }
    }
    return java.util.Arrays.copyOf(b.array(), b.position());
  }

  private static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) {
      s.append(String.format("%02x", x));
    }
    return s.toString();
  }
}
