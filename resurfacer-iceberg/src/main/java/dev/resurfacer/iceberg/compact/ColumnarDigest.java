package dev.resurfacer.iceberg.compact;

import dev.resurfacer.content.RowBlock;
import dev.resurfacer.content.RowDigest;
import dev.resurfacer.content.ValueHash;
import dev.resurfacer.content.ValueHash.Kind;
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
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.ParquetReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnReader;
import org.apache.parquet.column.impl.ColumnReadStoreImpl;
import org.apache.parquet.column.page.PageReadStore;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.io.api.Converter;
import org.apache.parquet.io.api.GroupConverter;
import org.apache.parquet.io.api.PrimitiveConverter;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * The same {@link RowDigest} as {@link Checksum}'s generic read, computed a column at a time with
 * parquet-java's column readers: each column of a block of rows is decoded into a primitive array
 * (or hashed straight from its bytes) and folded into the block's row hashes, with no Java object
 * per value. Columns are found by Parquet field id; position deletes and deletion vectors are
 * Iceberg's own {@link PositionDeleteIndex}, applied by row position. It reads flat tables of
 * Parquet files without equality deletes or row lineage ({@link #reads}); a file it cannot read
 * exactly (no field ids, a column missing, an encoding Iceberg converts) throws {@link Unreadable},
 * and the caller digests the group with the generic reader instead.
 */
final class ColumnarDigest {
  private static final int BLOCK = 4096;
  private static final Set<Type.TypeID> TYPES = Set.of(Type.TypeID.BOOLEAN, Type.TypeID.INTEGER, Type.TypeID.LONG,
      Type.TypeID.FLOAT, Type.TypeID.DOUBLE, Type.TypeID.DATE, Type.TypeID.TIME, Type.TypeID.TIMESTAMP, Type.TypeID.STRING,
      Type.TypeID.UUID, Type.TypeID.FIXED, Type.TypeID.BINARY, Type.TypeID.DECIMAL);

  /** A file this reader cannot digest exactly as Iceberg's generic reader reads it. */
  static final class Unreadable extends RuntimeException {
    Unreadable(String why) {
      super(why, null, false, false);
    }
  }

  private ColumnarDigest() {}

  /** Whether this reader digests a group of this table with these inputs (files are checked as they are read). */
  static boolean reads(Table table, Schema schema, List<FileScanTask> tasks) {
    if (LiveRows.formatVersion(table) >= 3 || !schema.columns().stream().allMatch(f -> TYPES.contains(f.type().typeId()))) {
      return false;
    }
    for (FileScanTask t : tasks) {
      if (t.file().format() != FileFormat.PARQUET || t.start() != 0 || t.length() != t.file().fileSizeInBytes()) {
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
    RowDigest.Builder digest = new RowDigest.Builder(schema.columns().size());
    BaseDeleteLoader loader = new BaseDeleteLoader(d -> table.io().newInputFile(d));
    RowBlock block = new RowBlock(BLOCK, schema.columns().size());
    for (FileScanTask task : tasks) {
      PositionDeleteIndex deletes = task.deletes().isEmpty() ? null
          : loader.loadPositionDeletes(task.deletes(), task.file().location());
      add(table.io().newInputFile(task.file()), schema, deletes, digest, block);
    }
    return digest.build();
  }

  static RowDigest ofFiles(Table table, List<String> locations, Schema schema) {
    RowDigest.Builder digest = new RowDigest.Builder(schema.columns().size());
    RowBlock block = new RowBlock(BLOCK, schema.columns().size());
    for (String location : locations) {
      add(table.io().newInputFile(location), schema, null, digest, block);
    }
    return digest.build();
  }

  private static void add(InputFile file, Schema schema, PositionDeleteIndex deletes, RowDigest.Builder digest, RowBlock block) {
    try (ParquetFileReader reader = ParquetFileReader.open(ParquetFooters.parquetFile(file),
        // one per file: the reader may write to its configuration, and digests run on several threads
        ParquetReadOptions.builder(new PlainParquetConfiguration()).build())) {
      MessageType fileSchema = reader.getFooter().getFileMetaData().getSchema();
      List<Column> columns = columns(schema, fileSchema, file.location());
      String createdBy = reader.getFooter().getFileMetaData().getCreatedBy();
      long rowBase = 0;
      PageReadStore rowGroup;
      while ((rowGroup = reader.readNextRowGroup()) != null) {
        ColumnReadStoreImpl store = new ColumnReadStoreImpl(rowGroup, new Ignored(fileSchema.getFieldCount()), fileSchema, createdBy);
        ColumnReader[] readers = columns.stream().map(c -> store.getColumnReader(c.descriptor())).toArray(ColumnReader[]::new);
        columns.forEach(Column::startRowGroup);
        long rows = rowGroup.getRowCount();
        for (long done = 0; done < rows; done += BLOCK) {
          int n = (int) Math.min(BLOCK, rows - done);
          block.reset(n);
          if (deletes != null) {
            for (int r = 0; r < n; r++) {
              if (deletes.isDeleted(rowBase + done + r)) {
                block.delete(r);
              }
            }
          }
          for (int c = 0; c < readers.length; c++) {
            columns.get(c).fold(c, readers[c], n, block);
          }
          digest.addRows(block);
        }
        rowBase += rows;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file.location(), e);
    }
  }

  private static List<Column> columns(Schema schema, MessageType fileSchema, String location) {
    Map<Integer, org.apache.parquet.schema.Type> byId = new HashMap<>();
    for (org.apache.parquet.schema.Type t : fileSchema.getFields()) {
      if (t.getId() == null) {
        throw new Unreadable(location + " has no field ids");
      }
      byId.put(t.getId().intValue(), t);
    }
    List<Column> out = new ArrayList<>();
    for (Types.NestedField f : schema.columns()) {
      org.apache.parquet.schema.Type stored = byId.get(f.fieldId());
      if (stored == null || !stored.isPrimitive() || stored.isRepetition(org.apache.parquet.schema.Type.Repetition.REPEATED)) {
        throw new Unreadable(location + " does not store column " + f.name() + " as one flat column");
      }
      ColumnDescriptor descriptor = fileSchema.getColumnDescription(new String[] {stored.getName()});
      out.add(new Column(f, descriptor, encoding(f, stored.asPrimitiveType(), location)));
    }
    return out;
  }

  /** How a stored column's values become the canonical values {@link Checksum#hash} gives Iceberg's. */
  private enum Encoding { BOOLEAN, INT_AS_LONG, LONG, FLOAT, FLOAT_AS_DOUBLE, DOUBLE, BYTES, UUID, DECIMAL_INT, DECIMAL_BYTES }

  private static Encoding encoding(Types.NestedField f, PrimitiveType stored, String location) {
    PrimitiveTypeName p = stored.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = stored.getLogicalTypeAnnotation();
    Encoding e = switch (f.type().typeId()) {
      case BOOLEAN -> p == PrimitiveTypeName.BOOLEAN ? Encoding.BOOLEAN : null;
      case INTEGER, DATE -> p == PrimitiveTypeName.INT32 ? Encoding.INT_AS_LONG : null;
      case LONG -> p == PrimitiveTypeName.INT64 ? Encoding.LONG : p == PrimitiveTypeName.INT32 ? Encoding.INT_AS_LONG : null;
      case FLOAT -> p == PrimitiveTypeName.FLOAT ? Encoding.FLOAT : null;
      case DOUBLE -> p == PrimitiveTypeName.DOUBLE ? Encoding.DOUBLE : p == PrimitiveTypeName.FLOAT ? Encoding.FLOAT_AS_DOUBLE : null;
      case TIME, TIMESTAMP -> p == PrimitiveTypeName.INT64 && micros(logical) ? Encoding.LONG : null;
      case STRING -> p == PrimitiveTypeName.BINARY && logical instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation
          ? Encoding.BYTES : null;
      case BINARY -> p == PrimitiveTypeName.BINARY ? Encoding.BYTES : null;
      case FIXED -> p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY ? Encoding.BYTES : null;
      case UUID -> p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY && stored.getTypeLength() == 16 ? Encoding.UUID : null;
      case DECIMAL -> p == PrimitiveTypeName.INT32 || p == PrimitiveTypeName.INT64 ? Encoding.DECIMAL_INT
          : p == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || p == PrimitiveTypeName.BINARY ? Encoding.DECIMAL_BYTES : null;
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

  /** One table column in one file: where it is stored, and how it folds into a block's row hashes. */
  private record Column(Types.NestedField field, ColumnDescriptor descriptor, Encoding encoding, Kind kind, int scale,
      long[] longs, double[] doubles, long[] hashes, boolean[] nulls, Dictionary dictionary) {
    Column(Types.NestedField field, ColumnDescriptor descriptor, Encoding encoding) {
      this(field, descriptor, encoding, Checksum.kind(field.type()),
          field.type() instanceof Types.DecimalType d ? d.scale() : 0,
          new long[BLOCK], new double[BLOCK], new long[BLOCK], new boolean[BLOCK], new Dictionary());
    }

    void fold(int index, ColumnReader reader, int n, RowBlock block) {
      int maxDef = descriptor.getMaxDefinitionLevel();
      int id = field.fieldId();
      switch (encoding) {
        case LONG, INT_AS_LONG -> {
          boolean ints = encoding == Encoding.INT_AS_LONG;
          for (int r = 0; r < n; r++) {
            boolean isNull = reader.getCurrentDefinitionLevel() < maxDef;
            nulls[r] = isNull;
            if (!isNull) {
              longs[r] = ints ? reader.getInteger() : reader.getLong();
            }
            reader.consume();
          }
          block.foldLongs(index, id, kind, longs, nulls);
        }
        case DOUBLE, FLOAT_AS_DOUBLE -> {
          boolean floats = encoding == Encoding.FLOAT_AS_DOUBLE;
          for (int r = 0; r < n; r++) {
            boolean isNull = reader.getCurrentDefinitionLevel() < maxDef;
            nulls[r] = isNull;
            if (!isNull) {
              doubles[r] = floats ? (double) reader.getFloat() : reader.getDouble();
            }
            reader.consume();
          }
          block.foldDoubles(index, id, doubles, nulls);
        }
        default -> {
          long nullHash = ValueHash.ofNull(kind);
          for (int r = 0; r < n; r++) {
            hashes[r] = reader.getCurrentDefinitionLevel() < maxDef ? nullHash : dictionaryHash(reader);
            reader.consume();
          }
          block.fold(index, id, hashes);
        }
      }
    }

    /** Starts a row group: its pages have their own dictionary. */
    void startRowGroup() {
      dictionary.reset();
    }

    /**
     * A dictionary-encoded value is hashed once per row group and then found by its dictionary id:
     * the strings and decimals a writer dictionary-encodes repeat, and decoding each into a
     * {@code Binary} was most of the reader's time. A page that is not dictionary-encoded (the
     * reader then refuses the id) is hashed value by value for the rest of the row group.
     */
    private long dictionaryHash(ColumnReader reader) {
      if (!dictionary.plain) {
        int dictId;
        try {
          dictId = reader.getCurrentValueDictionaryID();
        } catch (UnsupportedOperationException | IllegalStateException notDictionary) {
          dictionary.plain = true;
          return hash(reader);
        }
        return dictionary.hash(dictId, reader, this);
      }
      return hash(reader);
    }

    private long hash(ColumnReader reader) {
      return switch (encoding) {
        case BOOLEAN -> ValueHash.ofBoolean(reader.getBoolean());
        case FLOAT -> ValueHash.ofFloat(reader.getFloat());
        case BYTES -> bytes(kind, reader.getBinary());
        case UUID -> {
          java.nio.ByteBuffer b = reader.getBinary().toByteBuffer().order(java.nio.ByteOrder.BIG_ENDIAN);
          yield ValueHash.ofUuid(b.getLong(b.position()), b.getLong(b.position() + 8));
        }
        case DECIMAL_INT -> ValueHash.ofDecimal(scale, descriptor.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT32
            ? reader.getInteger() : reader.getLong());
        case DECIMAL_BYTES -> ValueHash.ofDecimal(scale, reader.getBinary().getBytesUnsafe());
        default -> throw new IllegalStateException(encoding + " is folded as primitives");
      };
    }

    private static long bytes(Kind kind, Binary b) {
      java.nio.ByteBuffer buf = b.toByteBuffer();
      return ValueHash.ofBytes(kind, buf);
    }
  }

  /** The hashes of one column chunk's dictionary entries, filled as their ids are first met. */
  private static final class Dictionary {
    private long[] hashes = new long[256];
    private boolean[] known = new boolean[256];
    boolean plain;

    void reset() {
      java.util.Arrays.fill(known, false);
      plain = false;
    }

    long hash(int dictId, ColumnReader reader, Column column) {
      if (dictId >= hashes.length) {
        int size = Math.max(dictId + 1, hashes.length * 2);
        hashes = java.util.Arrays.copyOf(hashes, size);
        known = java.util.Arrays.copyOf(known, size);
      }
      if (!known[dictId]) {
        hashes[dictId] = column.hash(reader);
        known[dictId] = true;
      }
      return hashes[dictId];
    }
  }

  /** Converters the column readers are built with and never called: values are read from the readers directly. */
  private static final class Ignored extends GroupConverter {
    private final int fields;

    Ignored(int fields) {
      this.fields = fields;
    }

    @Override
    public Converter getConverter(int fieldIndex) {
      if (fieldIndex >= fields) {
        throw new IndexOutOfBoundsException(fieldIndex);
      }
      return new PrimitiveConverter() { };
    }

    @Override
    public void start() {}

    @Override
    public void end() {}
  }
}
