package dev.resurfacer.iceberg.compact;

import dev.resurfacer.content.DigestScratch;
import dev.resurfacer.content.PageHashes;
import dev.resurfacer.content.PageHashes.Stored;
import dev.resurfacer.content.ParquetPages;
import dev.resurfacer.content.ParquetRows;
import dev.resurfacer.content.RowDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.util.HadoopCodecs;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The same {@link RowDigest} as {@link Checksum}'s generic read, computed a column at a time from
 * parquet-java's pages: each column's pages are decoded whole into column hashes ({@link PageHashes})
 * and folded into a block's row hashes with one add per value, with no Java object and no reader
 * call per value. Columns are found by Parquet field id; position deletes and deletion vectors are
 * Iceberg's own {@link PositionDeleteIndex}, applied by row position. It reads flat tables of
 * Parquet files without equality deletes or row lineage ({@link #reads}); a file it cannot read
 * exactly (no field ids, a column missing, an encoding Iceberg converts) throws {@link Unreadable},
 * and the caller digests the group with the generic reader instead.
 */
final class ColumnarDigest {
  private static final Set<Type.TypeID> TYPES = Set.of(
      Type.TypeID.BOOLEAN,
      Type.TypeID.INTEGER,
      Type.TypeID.LONG,
      Type.TypeID.FLOAT,
      Type.TypeID.DOUBLE,
      Type.TypeID.DATE,
      Type.TypeID.TIME,
      Type.TypeID.TIMESTAMP,
      Type.TypeID.STRING,
      Type.TypeID.UUID,
      Type.TypeID.FIXED,
      Type.TypeID.BINARY,
      Type.TypeID.DECIMAL);

  /** A file this reader cannot digest exactly as Iceberg's generic reader reads it. */
  static final class Unreadable extends PageHashes.Unreadable {
    Unreadable(String why) {
      super(why);
    }
  }

  private ColumnarDigest() {}

  /** Whether this reader digests a group of this table with these inputs (files are checked as they are read). */
  static boolean reads(Table table, Schema schema, List<FileScanTask> tasks) {
    if (LiveRows.formatVersion(table) >= 3
        || !schema.columns().stream().allMatch(f -> TYPES.contains(f.type().typeId()))) {
      return false;
    }
    for (FileScanTask t : tasks) {
      if (t.file().format() != FileFormat.PARQUET
          || t.start() != 0
          || t.length() != t.file().fileSizeInBytes()) {
        return false;
      }
      for (DeleteFile d : t.deletes()) {
        if (d.content() == FileContent.EQUALITY_DELETES) {
          return false;
        }
      }
    }
    return true;
  }

  /** The live rows of the tasks, position deletes and deletion vectors applied. */
  static RowDigest ofTasks(Table table, List<FileScanTask> tasks, Schema schema) {
    try (DigestScratch scratch = newScratch()) {
      return ofTasks(table, tasks, schema, scratch);
    }
  }

  /** As {@link #ofTasks(Table, List, Schema)}, reading with {@code scratch}'s arrays. */
  static RowDigest ofTasks(
      Table table, List<FileScanTask> tasks, Schema schema, DigestScratch scratch) {
    RowDigest.Builder digest = new RowDigest.Builder(schema.columns().size());
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
    for (FileScanTask task : tasks) {
      PositionDeleteIndex deletes = task.deletes().isEmpty()
          ? null
          : loader.loadPositionDeletes(task.deletes(), task.file().location());
      String location = task.file().location();
      add(
          parquetFile(location, () -> table.io().newInputFile(task.file())),
          location,
          schema,
          deletes,
          digest,
          scratch,
          0,
          1);
    }
    return digest.build();
  }

  static RowDigest ofFiles(Table table, List<String> locations, Schema schema) {
    try (DigestScratch scratch = newScratch()) {
      return ofFiles(table, locations, schema, scratch);
    }
  }

  /** As {@link #ofFiles(Table, List, Schema)}, reading with {@code scratch}'s arrays. */
  static RowDigest ofFiles(
      Table table, List<String> locations, Schema schema, DigestScratch scratch) {
    return ofFiles(table, locations, schema, scratch, 0, 1);
  }

  /**
   * The digest of the files' row groups whose index in their file leaves {@code part} when divided
   * by {@code parts}: the {@link RowDigest#plus} of every part is the files' digest.
   */
  static RowDigest ofFiles(
      Table table,
      List<String> locations,
      Schema schema,
      DigestScratch scratch,
      int part,
      int parts) {
    RowDigest.Builder digest = new RowDigest.Builder(schema.columns().size());
    for (String location : locations) {
      add(
          parquetFile(location, () -> table.io().newInputFile(location)),
          location,
          schema,
          null,
          digest,
          scratch,
          part,
          parts);
    }
    return digest.build();
  }

  /**
   * A local file directly (as {@link ParquetFooters#parquetFile} reads it), without asking the
   * table's FileIO first: Hadoop's looks up a file system per file; any other through the FileIO.
   */
  private static org.apache.parquet.io.InputFile parquetFile(
      String location, java.util.function.Supplier<org.apache.iceberg.io.InputFile> viaFileIo) {
    java.nio.file.Path local = PlacedFiles.localPath(location);
    return local != null
        ? new dev.resurfacer.content.LocalParquetFile(local)
        : ParquetFooters.parquetFile(viaFileIo.get());
  }

  /** A digest's arrays and decompressor, for one digest; a run shares a {@link DigestScratch.Pool}. */
  static DigestScratch newScratch() {
    return new DigestScratch(() -> HadoopCodecs.newFactory(0));
  }

  /** The pools a compaction run's digests share. */
  static DigestScratch.Pools newScratchPools() {
    return DigestScratch.Pools.create(() -> HadoopCodecs.newFactory(0));
  }

  private static void add(
      org.apache.parquet.io.InputFile file,
      String location,
      Schema schema,
      PositionDeleteIndex deletes,
      RowDigest.Builder digest,
      DigestScratch scratch,
      int part,
      int parts) {
    if (parts > 1 && deletes != null) {
      // a file's deleted positions count from its first row group, which another part reads
      throw new IllegalArgumentException("a file with deletes is digested whole");
    }
    try (ParquetPages reader = ParquetPages.open(file, scratch)) {
      MessageType fileSchema = reader.schema();
      PageHashes[] columns = scratch.decoders(
          fileSchema,
          schema,
          () -> columns(schema, fileSchema, location, scratch).toArray(PageHashes[]::new));
      ParquetRows.add(
          () -> reader.nextRowGroup(part, parts),
          columns,
          null,
          null,
          null,
          deletes == null ? null : deletes::isDeleted,
          digest,
          scratch.block(schema.columns().size()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + location, e);
    }
  }

  private static List<PageHashes> columns(
      Schema schema, MessageType fileSchema, String location, DigestScratch scratch) {
    Map<Integer, org.apache.parquet.schema.Type> byId = new HashMap<>();
    for (org.apache.parquet.schema.Type t : fileSchema.getFields()) {
      if (t.getId() == null) {
        throw new Unreadable(location + " has no field ids");
      }
      byId.put(t.getId().intValue(), t);
    }
    List<PageHashes> out = new ArrayList<>();
    for (int i = 0; i < schema.columns().size(); i++) {
      Types.NestedField f = schema.columns().get(i);
      org.apache.parquet.schema.Type stored = byId.get(f.fieldId());
      if (stored == null
          || !stored.isPrimitive()
          || stored.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)) {
        throw new Unreadable(
            location + " does not store column " + f.name() + " as one flat column");
      }
      ColumnDescriptor descriptor =
          fileSchema.getColumnDescription(new String[] {stored.getName()});
      out.add(new PageHashes(
          descriptor,
          encoding(f, stored.asPrimitiveType(), location),
          Checksum.kind(f.type()),
          f.type() instanceof Types.DecimalType d ? d.scale() : 0,
          f.fieldId(),
          scratch.column(i)));
    }
    return out;
  }

  private static Stored encoding(Types.NestedField f, PrimitiveType stored, String location) {
    PrimitiveTypeName p = stored.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = stored.getLogicalTypeAnnotation();
    Stored e = switch (f.type().typeId()) {
      case BOOLEAN -> p == PrimitiveTypeName.BOOLEAN ? Stored.BOOLEAN : null;
      case INTEGER, DATE -> p == PrimitiveTypeName.INT32 ? Stored.INT_AS_LONG : null;
      case LONG ->
        p == PrimitiveTypeName.INT64
            ? Stored.LONG
            : p == PrimitiveTypeName.INT32 ? Stored.INT_AS_LONG : null;
      case FLOAT -> p == PrimitiveTypeName.FLOAT ? Stored.FLOAT : null;
      case DOUBLE ->
        p == PrimitiveTypeName.DOUBLE
            ? Stored.DOUBLE
            : p == PrimitiveTypeName.FLOAT ? Stored.FLOAT_AS_DOUBLE : null;
      case TIME, TIMESTAMP -> p == PrimitiveTypeName.INT64 && micros(logical) ? Stored.LONG : null;
      case STRING ->
        p == PrimitiveTypeName.BINARY
                && logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
            ? Stored.BYTES
            : null;
      case BINARY -> p == PrimitiveTypeName.BINARY ? Stored.BYTES : null;
      case FIXED -> p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY ? Stored.BYTES : null;
      case UUID ->
        p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && stored.getTypeLength() == 16
            ? Stored.UUID
            : null;
      case DECIMAL ->
        p == PrimitiveTypeName.INT32 || p == PrimitiveTypeName.INT64
            ? Stored.DECIMAL_INT
            : p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || p == PrimitiveTypeName.BINARY
                ? Stored.DECIMAL_BYTES
                : null;
      default -> null;
    };
    if (e == null) {
      throw new Unreadable(location + " stores " + f.name() + " (" + f.type() + ") as " + stored);
    }
    return e;
  }

  private static boolean micros(LogicalTypeAnnotation logical) {
    if (logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t) {
      return t.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
    }
    if (logical instanceof LogicalTypeAnnotation.TimeLogicalTypeAnnotation t) {
      return t.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS;
    }
    return false;
  }
}
