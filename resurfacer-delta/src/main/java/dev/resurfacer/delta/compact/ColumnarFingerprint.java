package dev.resurfacer.delta.compact;

import dev.resurfacer.content.DigestScratch;
import dev.resurfacer.content.LocalParquetFile;
import dev.resurfacer.content.PageHashes;
import dev.resurfacer.content.PageHashes.Stored;
import dev.resurfacer.content.ParquetPages;
import dev.resurfacer.content.ParquetRows;
import dev.resurfacer.content.RowDigest;
import dev.resurfacer.content.ValueHash;
import dev.resurfacer.content.ValueHash.Kind;
import dev.resurfacer.delta.kernel.KernelInternals;
import dev.resurfacer.delta.scan.LiveFile;
import dev.resurfacer.delta.table.LocalStorage;
import io.delta.kernel.data.Row;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.types.BinaryType;
import io.delta.kernel.types.BooleanType;
import io.delta.kernel.types.ByteType;
import io.delta.kernel.types.DataType;
import io.delta.kernel.types.DateType;
import io.delta.kernel.types.DecimalType;
import io.delta.kernel.types.DoubleType;
import io.delta.kernel.types.FloatType;
import io.delta.kernel.types.IntegerType;
import io.delta.kernel.types.LongType;
import io.delta.kernel.types.ShortType;
import io.delta.kernel.types.StringType;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.types.TimestampNTZType;
import io.delta.kernel.types.TimestampType;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.LongPredicate;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.hadoop.util.HadoopCodecs;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.apache.parquet.schema.Type;

/**
 * The same {@link RowDigest} as {@link ContentFingerprint}'s Kernel read of a file, computed a
 * column at a time from the file's Parquet pages by core's {@link PageHashes} (the decoder
 * Iceberg's verification uses): no Kernel vector and no call per value. A column is found as
 * Kernel finds it, by its physical name, and on a column-mapped table only where the file's column
 * of that name carries the field's id or none and no other column carries the id; materialized
 * partition columns of an input file are the bin's partition values, a constant per row, as
 * Kernel adds them; deletion vectors are applied by row position. A file it cannot read exactly
 * (a nested or type-widened column, millisecond timestamps, a remote file, an unknown
 * encoding) gives empty, and the caller digests that file with Kernel: both definitions give the
 * same digest of the same rows, so a bin's files may be digested either way.
 */
final class ColumnarFingerprint {
  private ColumnarFingerprint() {}

  /** One input file's live rows, or empty when this reader cannot read it exactly. */
  static Optional<RowDigest> ofInput(BinWork work, LiveFile file) {
    if (!(work.table().storage() instanceof LocalStorage)) {
      return Optional.empty();
    }
    DataColumns columns = work.columns();
    StructType written = columns.written();
    long[] constants = new long[written.length()];
    boolean[] constant = new boolean[written.length()];
    boolean[] constantNulls = new boolean[written.length()];
    for (int i = columns.names().size(); i < written.length(); i++) {
      // a materialized partition column: Kernel reads it from the log, not the file
      Literal value = work.partition().get(columns.writtenNames().get(i));
      Optional<Long> hash =
          value == null ? Optional.empty() : constantHash(written.at(i).getDataType(), value);
      if (hash.isEmpty()) {
        return Optional.empty();
      }
      constant[i] = true;
      constantNulls[i] = value.getValue() == null;
      constants[i] = RowDigest.columnHash(i + 1, hash.get());
    }
    LongPredicate deleted = null;
    if (file.deletionVector().isPresent()) {
      Row scanFile = work.scanFiles().get(file.logPath());
      Row add = scanFile.getStruct(scanFile.getSchema().indexOf("add"));
      long[] positions = KernelInternals.deletedPositions(
          work.engine(),
          work.table().uri(),
          add.getStruct(add.getSchema().indexOf("deletionVector")));
      BitSet bits = new BitSet();
      for (long p : positions) {
        if (p < 0 || p >= Integer.MAX_VALUE) {
          return Optional.empty();
        }
        bits.set((int) p);
      }
      deleted = p -> p < Integer.MAX_VALUE && bits.get((int) p);
    }
    return of(
        LocalStorage.path(file.file()),
        written,
        constant,
        constants,
        constantNulls,
        deleted,
        work.digests().inputs());
  }

  /** One new file's rows read back as written, or empty when this reader cannot read it exactly. */
  static Optional<RowDigest> ofOutput(DataColumns columns, DataFileStatus f) {
    try (DigestScratch.Pools own = newScratchPools()) {
      return ofOutput(columns, f, own.outputs());
    }
  }

  /** As {@link #ofOutput(DataColumns, DataFileStatus)}, with a run's pooled arrays. */
  static Optional<RowDigest> ofOutput(
      DataColumns columns, DataFileStatus f, DigestScratch.Pool scratch) {
    if (!f.getPath().startsWith("file:/") && !f.getPath().startsWith("/")) {
      return Optional.empty();
    }
    StructType written = columns.written();
    return of(
        LocalStorage.fromKernelSpelling(f.getPath()),
        written,
        new boolean[written.length()],
        new long[written.length()],
        null,
        null,
        scratch);
  }

  /** The pools a compaction run's fingerprints share. */
  static DigestScratch.Pools newScratchPools() {
    return DigestScratch.Pools.create(() -> HadoopCodecs.newFactory(0));
  }

  private static Optional<RowDigest> of(
      Path path,
      StructType written,
      boolean[] constant,
      long[] constants,
      boolean[] constantNulls,
      LongPredicate deleted,
      DigestScratch.Pool pool) {
    for (StructField f : written.fields()) {
      if (kindOf(f.getDataType()).isEmpty()) {
        return Optional.empty();
      }
    }
    if (Thread.currentThread().isInterrupted()) {
      throw new CancellationException("content verification cancelled");
    }
    return pool.with(scratch -> {
      int n = written.length();
      RowDigest.Builder digest = new RowDigest.Builder(n);
      try (ParquetPages reader = ParquetPages.open(new LocalParquetFile(path), scratch)) {
        MessageType fileSchema = reader.schema();
        PageHashes[] decoders = new PageHashes[n];
        for (int i = 0; i < n; i++) {
          if (!constant[i]) {
            decoders[i] = decoder(written.at(i), i + 1, fileSchema, scratch.column(i));
          }
        }
        int[] fieldIds = new int[n];
        Arrays.setAll(fieldIds, i -> i + 1);
        ParquetRows.add(
            reader::nextRowGroup,
            decoders,
            constants,
            constantNulls,
            fieldIds,
            deleted,
            digest,
            scratch.block(n));
      } catch (PageHashes.Unreadable e) {
        return Optional.empty();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException("cannot read " + path, e);
      }
      return Optional.of(digest.build());
    });
  }

  /** The decoder of the file's column Kernel reads for {@code field}. */
  private static PageHashes decoder(
      StructField field, int fieldId, MessageType fileSchema, PageHashes.Buffers buffers) {
    String name = field.getName();
    Optional<Long> id = KernelInternals.parquetFieldId(field);
    Type stored = null;
    for (Type t : fileSchema.getFields()) {
      if (t.getName().equals(name)) {
        stored = t;
      } else if (t.getName().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))) {
        throw new PageHashes.Unreadable("the file has a case twin of " + name);
      } else if (id.isPresent() && t.getId() != null && t.getId().intValue() == id.get()) {
        throw new PageHashes.Unreadable(
            "the file stores field id " + id.get() + " under another name than " + name);
      }
    }
    if (stored == null
        || !stored.isPrimitive()
        || stored.isRepetition(Type.Repetition.REPEATED)
        || (id.isPresent() && stored.getId() != null && stored.getId().intValue() != id.get())) {
      throw new PageHashes.Unreadable(
          "the file does not store " + name + " as one flat column of its id");
    }
    PrimitiveType p = stored.asPrimitiveType();
    DataType type = field.getDataType();
    Stored how = stored(type, p);
    if (how == null) {
      throw new PageHashes.Unreadable("the file stores " + name + " (" + type + ") as " + p);
    }
    ColumnDescriptor descriptor = fileSchema.getColumnDescription(new String[] {stored.getName()});
    return new PageHashes(
        descriptor,
        how,
        kindOf(type).orElseThrow(),
        type instanceof DecimalType d ? d.getScale() : 0,
        fieldId,
        buffers);
  }

  /** How Kernel's reader gives a stored column's values as {@code type}, where the page decoder gives the same; else null. */
  private static Stored stored(DataType type, PrimitiveType p) {
    PrimitiveTypeName name = p.getPrimitiveTypeName();
    LogicalTypeAnnotation logical = p.getLogicalTypeAnnotation();
    if (type instanceof BooleanType) {
      return name == PrimitiveTypeName.BOOLEAN ? Stored.BOOLEAN : null;
    } else if (type instanceof ByteType
        || type instanceof ShortType
        || type instanceof IntegerType) {
      return name == PrimitiveTypeName.INT32 && signedInt(logical) ? Stored.INT_AS_LONG : null;
    } else if (type instanceof LongType) {
      return name == PrimitiveTypeName.INT64 && signedInt(logical) ? Stored.LONG : null;
    } else if (type instanceof DateType) {
      return name == PrimitiveTypeName.INT32
              && logical instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation
          ? Stored.INT_AS_LONG
          : null;
    } else if (type instanceof TimestampType && name == PrimitiveTypeName.INT96) {
      return Stored.INT96_MICROS;
    } else if (type instanceof TimestampType || type instanceof TimestampNTZType) {
      return name == PrimitiveTypeName.INT64
              && logical instanceof LogicalTypeAnnotation.TimestampLogicalTypeAnnotation t
              && t.getUnit() == LogicalTypeAnnotation.TimeUnit.MICROS
          ? Stored.LONG
          : null;
    } else if (type instanceof FloatType) {
      return name == PrimitiveTypeName.FLOAT ? Stored.FLOAT : null;
    } else if (type instanceof DoubleType) {
      return name == PrimitiveTypeName.DOUBLE ? Stored.DOUBLE : null;
    } else if (type instanceof StringType || type instanceof BinaryType) {
      return name == PrimitiveTypeName.BINARY ? Stored.BYTES : null;
    } else if (type instanceof DecimalType d) {
      if (!(logical instanceof LogicalTypeAnnotation.DecimalLogicalTypeAnnotation a)
          || a.getScale() != d.getScale()) {
        return null;
      }
      return name == PrimitiveTypeName.INT32 || name == PrimitiveTypeName.INT64
          ? Stored.DECIMAL_INT
          : name == PrimitiveTypeName.FIXED_LEN_BYTE_ARRAY || name == PrimitiveTypeName.BINARY
              ? Stored.DECIMAL_BYTES
              : null;
    }
    return null;
  }

  private static boolean signedInt(LogicalTypeAnnotation logical) {
    return logical == null
        || logical instanceof LogicalTypeAnnotation.IntLogicalTypeAnnotation i && i.isSigned();
  }

  /** The {@link ContentFingerprint#kind} of the flat types this reader digests. */
  private static Optional<Kind> kindOf(DataType t) {
    boolean flat = t instanceof BooleanType
        || t instanceof ByteType
        || t instanceof ShortType
        || t instanceof IntegerType
        || t instanceof LongType
        || t instanceof DateType
        || t instanceof TimestampType
        || t instanceof TimestampNTZType
        || t instanceof FloatType
        || t instanceof DoubleType
        || t instanceof StringType
        || t instanceof BinaryType
        || t instanceof DecimalType;
    return flat ? Optional.of(ContentFingerprint.kind(t)) : Optional.empty();
  }

  /** The value hash Kernel's vector of a partition value gives every row ({@link ContentFingerprint}'s hash of it). */
  static Optional<Long> constantHash(DataType t, Literal literal) {
    Optional<Kind> kind = kindOf(t);
    if (kind.isEmpty()) {
      return Optional.empty();
    }
    Object v = literal.getValue();
    if (v == null) {
      return Optional.of(ValueHash.ofNull(kind.get()));
    }
    // each arm builds its own Optional: no conditional mixes a long with null, which unboxing would
    // turn into an NPE
    return switch (kind.get()) {
      case BOOLEAN ->
        v instanceof Boolean b ? Optional.of(ValueHash.ofBoolean(b)) : Optional.empty();
      case INT, DATE, LONG, TIMESTAMP, TIMESTAMP_TZ ->
        v instanceof Number x
                && !(v instanceof BigDecimal)
                && !(v instanceof Float)
                && !(v instanceof Double)
            ? Optional.of(ValueHash.ofLong(kind.get(), x.longValue()))
            : Optional.empty();
      case FLOAT -> v instanceof Float x ? Optional.of(ValueHash.ofFloat(x)) : Optional.empty();
      case DOUBLE -> v instanceof Double x ? Optional.of(ValueHash.ofDouble(x)) : Optional.empty();
      case STRING ->
        v instanceof String s
            ? Optional.of(ValueHash.ofBytes(Kind.STRING, s.getBytes(StandardCharsets.UTF_8)))
            : v instanceof byte[] b
                ? Optional.of(ValueHash.ofBytes(Kind.STRING, b))
                : Optional.empty();
      case DECIMAL ->
        v instanceof BigDecimal d ? Optional.of(ValueHash.ofDecimal(d)) : Optional.empty();
      default -> Optional.empty();
    };
  }
}
