package dev.resurfacer.delta.kernel;

import io.delta.kernel.Snapshot;
import io.delta.kernel.commit.CommitFailedException;
import io.delta.kernel.commit.CommitMetadata;
import io.delta.kernel.commit.CommitResponse;
import io.delta.kernel.commit.Committer;
import io.delta.kernel.data.Row;
import io.delta.kernel.defaults.engine.hadoopio.HadoopFileIO;
import io.delta.kernel.defaults.internal.parquet.ParquetStatsReader;
import io.delta.kernel.engine.Engine;
import io.delta.kernel.expressions.Column;
import io.delta.kernel.expressions.Literal;
import io.delta.kernel.internal.TableConfig;
import io.delta.kernel.internal.actions.AddFile;
import io.delta.kernel.internal.actions.CommitInfo;
import io.delta.kernel.internal.actions.DeletionVectorDescriptor;
import io.delta.kernel.internal.actions.Protocol;
import io.delta.kernel.internal.actions.SingleAction;
import io.delta.kernel.internal.commit.DefaultFileSystemManagedTableOnlyCommitter;
import io.delta.kernel.internal.data.DelegateRow;
import io.delta.kernel.internal.data.ScanStateRow;
import io.delta.kernel.internal.deletionvectors.Base85Codec;
import io.delta.kernel.internal.deletionvectors.DeletionVectorUtils;
import io.delta.kernel.internal.util.ColumnMapping;
import io.delta.kernel.internal.util.InternalUtils;
import io.delta.kernel.internal.util.PartitionUtils;
import io.delta.kernel.internal.util.SchemaUtils;
import io.delta.kernel.internal.util.VectorUtils;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import io.delta.kernel.utils.CloseableIterator;
import io.delta.kernel.utils.DataFileStatus;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The one place that touches Delta Kernel's internal classes, pinned to Kernel {@value #PINNED}.
 * Kernel's public API stops short of what maintenance needs (the protocol's table features, the
 * file a deletion vector lives in, remove actions, {@code dataChange=false} adds, the OPTIMIZE
 * operation name); everything that needs it goes through here, and {@code KernelInternalsTest}
 * fails when a Kernel upgrade moves these internals.
 */
public final class KernelInternals {
  public static final String PINNED = "4.4.0";
  /** Numbers read and written as they are: a decimal column's min and max have more digits than a double. */
  private static final com.fasterxml.jackson.databind.ObjectMapper STATS_JSON =
      new com.fasterxml.jackson.databind.ObjectMapper()
          .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .setNodeFactory(
              com.fasterxml.jackson.databind.node.JsonNodeFactory.withExactBigDecimals(true));

  private KernelInternals() {}

  /** A table's protocol: reader and writer versions and the named table features. */
  public record TableProtocol(
      int minReaderVersion,
      int minWriterVersion,
      Set<String> readerFeatures,
      Set<String> writerFeatures) {
    public TableProtocol {
      readerFeatures = Set.copyOf(readerFeatures);
      writerFeatures = Set.copyOf(writerFeatures);
    }
  }

  public static TableProtocol protocol(Snapshot snapshot) {
    Protocol p = snapshot.getProtocol();
    return new TableProtocol(
        p.getMinReaderVersion(),
        p.getMinWriterVersion(),
        new TreeSet<>(p.getReaderFeatures()),
        new TreeSet<>(p.getWriterFeatures()));
  }

  /**
   * For a deletion vector stored by UUID ({@code storageType u}), its file relative to the table
   * root: the optional random prefix directory, then {@code deletion_vector_<uuid>.bin}.
   */
  public static String uuidDeletionVectorRelativePath(String pathOrInlineDv) {
    int prefixLength = pathOrInlineDv.length() - 20;
    if (prefixLength < 0) {
      throw new IllegalArgumentException("not a UUID deletion vector reference: " + pathOrInlineDv);
    }
    String prefix = pathOrInlineDv.substring(0, prefixLength);
    String name = "deletion_vector_"
        + Base85Codec.decodeUUID(pathOrInlineDv.substring(prefixLength)) + ".bin";
    return prefix.isEmpty() ? name : prefix + "/" + name;
  }

  /** The Parquet columns to read for a scan (Kernel adds the row index when deletion vectors must be applied). */
  public static StructType physicalReadSchema(Row scanState) {
    return ScanStateRow.getPhysicalDataReadSchema(scanState);
  }

  /** The table's id ({@code metaData.id}): what another engine's view of the same path must report. */
  public static String tableId(Snapshot snapshot) {
    return snapshot.getMetadata().getId();
  }

  /** Whether the table maps its columns to physical names ({@code delta.columnMapping.mode} name or id). */
  public static boolean columnMapped(Snapshot snapshot) {
    return ColumnMapping.getColumnMappingMode(snapshot.getMetadata().getConfiguration())
        != ColumnMapping.ColumnMappingMode.NONE;
  }

  /**
   * Whether readers find a data file's columns by Parquet field id ({@code delta.columnMapping.mode}
   * id), falling back to the name only where a file lacks the id, rather than by physical name.
   */
  public static boolean readsByFieldId(Snapshot snapshot) {
    return ColumnMapping.getColumnMappingMode(snapshot.getMetadata().getConfiguration())
        == ColumnMapping.ColumnMappingMode.ID;
  }

  /**
   * The table's physical schema (what data files hold, partition columns included), for new files
   * and their stats. On a column-mapped table: physical names at every level and each field's
   * {@code delta.columnMapping.id} as its Parquet field id (with the nested ids of array elements
   * and map keys and values where the table assigns them), in both modes: the protocol has
   * writers put field ids in the files whichever mode the table reads by, as delta-spark does.
   */
  public static StructType physicalSchema(Snapshot snapshot) {
    if (!columnMapped(snapshot)) {
      return snapshot.getMetadata().getPhysicalSchema();
    }
    StructType schema = snapshot.getSchema();
    return ColumnMapping.convertToPhysicalSchema(
        schema, schema, ColumnMapping.ColumnMappingMode.ID);
  }

  /** The Parquet field id a physical field carries, if any. */
  public static Optional<Long> parquetFieldId(StructField physicalField) {
    return Optional.ofNullable(
        physicalField.getMetadata().getLong(ColumnMapping.PARQUET_FIELD_ID_KEY));
  }

  /** The name a top-level field's values go by in data files and in {@code add.partitionValues}. */
  public static String physicalName(StructField logicalField) {
    return ColumnMapping.getPhysicalName(logicalField);
  }

  /**
   * The leaf columns new data files carry stats for, as Kernel's writer picks them: the first
   * {@code delta.dataSkippingNumIndexedCols} (32) leaves of the data columns, by physical name.
   * Taken from the data columns' physical schema because Kernel's own list leaves a column-mapped
   * table's partition columns in (it excludes them by logical name from the physical schema).
   */
  public static List<Column> statisticsColumns(
      StructType physicalDataSchema, Map<String, String> tableProperties) {
    return SchemaUtils.collectLeafColumns(
        physicalDataSchema,
        Set.of(),
        TableConfig.DATA_SKIPPING_NUM_INDEXED_COLS.fromMetadata(tableProperties));
  }

  /** A {@code remove} action for a scan file's {@code add}, with {@code dataChange=false}: the rows move, none change. */
  public static Row removeWithoutDataChange(Row addStruct, long deletionTimestamp) {
    return SingleAction.createRemoveFileSingleAction(
        new AddFile(addStruct).toRemoveFileRow(false, Optional.of(deletionTimestamp)));
  }

  /**
   * An {@code add} action bringing back a file a version removed: its {@code add} struct as the
   * log held it (stats, partition values, deletion vector, tags as they were), with {@code dataChange=false}.
   */
  public static Row readdWithoutDataChange(Row addStruct) {
    return SingleAction.createAddFileSingleAction(
        new DelegateRow(addStruct, Map.of(addStruct.getSchema().indexOf("dataChange"), false)));
  }

  /**
   * An {@code add} action for a new data file, with {@code dataChange=false} and its stats.
   *
   * @param partitionValues the file's {@code partitionValues} keyed by physical name, each spelled
   *     as given (a null value is a null partition)
   * @param tags the action's {@code tags}; none when empty
   */
  public static Row addWithoutDataChange(
      StructType physicalSchema,
      URI tableRoot,
      DataFileStatus file,
      Map<String, String> partitionValues,
      Map<String, String> tags) {
    return addWithoutDataChange(
        physicalSchema, tableRoot, file, partitionValues, tags, Optional.empty());
  }

  /**
   * As {@link #addWithoutDataChange(StructType, URI, DataFileStatus, Map, Map)}, the file carrying
   * {@code deletionVector} (a struct {@link #inlineDeletionVector} made); its stats then say
   * {@code tightBounds: false}, as delta-spark's are for a file with a deletion vector (they
   * describe the stored rows, deleted ones included).
   */
  public static Row addWithoutDataChange(
      StructType physicalSchema,
      URI tableRoot,
      DataFileStatus file,
      Map<String, String> partitionValues,
      Map<String, String> tags,
      Optional<Row> deletionVector) {
    Row add = AddFile.createAddFileRow(
        physicalSchema,
        InternalUtils.relativizePath(
                new io.delta.kernel.internal.fs.Path(file.getPath()), tableRoot)
            .toUri()
            .toString(),
        VectorUtils.stringStringMapValue(partitionValues),
        file.getSize(),
        file.getModificationTime(),
        false,
        deletionVector.map(DeletionVectorDescriptor::fromRow),
        tags.isEmpty() ? Optional.empty() : Optional.of(VectorUtils.stringStringMapValue(tags)),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
    if (file.getStatistics().isPresent()) {
      String stats =
          withoutEmptyObjects(file.getStatistics().get().serializeAsJson(physicalSchema));
      add = new DelegateRow(
          add,
          Map.of(
              add.getSchema().indexOf("stats"),
              deletionVector.isPresent() ? looseBounds(stats) : stats));
    }
    return SingleAction.createAddFileSingleAction(add);
  }

  private static String looseBounds(String statsJson) {
    try {
      var tree = (com.fasterxml.jackson.databind.node.ObjectNode) STATS_JSON.readTree(statsJson);
      tree.put("tightBounds", false);
      return STATS_JSON.writeValueAsString(tree);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Kernel wrote stats that are not JSON: " + statsJson, e);
    }
  }

  /** The schema of an {@code add} action as the log holds it, for reading whole {@code add} structs out of commits. */
  public static StructType addActionSchema() {
    return AddFile.SCHEMA_WITH_STATS;
  }

  // RoaringBitmapArray's portable format (Delta's PROTOCOL.md, "Deletion Vector Format"); Kernel
  // 4.4.0 reads it but has no writer
  private static final int PORTABLE_BITMAP_MAGIC = 1681511377;

  /**
   * The {@code deletionVector} struct of an inline vector (storage type {@code i}) deleting
   * {@code positions}: the bitmap serialized in Delta's portable format, Z85-encoded into the log.
   * Kernel 4.4.0 has no writer of vector files; inline vectors need none.
   *
   * @param positions distinct row positions, each below 2^32
   */
  public static Row inlineDeletionVector(long[] positions) {
    org.roaringbitmap.RoaringBitmap bitmap = new org.roaringbitmap.RoaringBitmap();
    for (long p : positions) {
      if (p < 0 || p >= (1L << 32)) {
        throw new IllegalArgumentException(
            "a row position beyond an inline deletion vector's 32 bits: " + p);
      }
      bitmap.add((int) p);
    }
    if (bitmap.getLongCardinality() != positions.length) {
      throw new IllegalArgumentException("a deletion vector's positions repeat");
    }
    bitmap.runOptimize();
    java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(
            4 + 8 + 4 + bitmap.serializedSizeInBytes())
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    buffer.putInt(PORTABLE_BITMAP_MAGIC).putLong(1).putInt(0);
    bitmap.serialize(buffer);
    byte[] bytes = buffer.array();
    return new DeletionVectorDescriptor(
            DeletionVectorDescriptor.INLINE_DV_MARKER,
            Base85Codec.encodeBytes(bytes),
            Optional.empty(),
            bytes.length,
            positions.length)
        .toRow();
  }

  /**
   * Stats JSON without the empty objects Kernel writes for a struct none of whose fields has a
   * value in {@code minValues}, {@code maxValues} or {@code nullCount} (a struct of lists and
   * maps, say): delta-spark leaves such a struct out.
   */
  static String withoutEmptyObjects(String statsJson) {
    if (!statsJson.contains("{}")) {
      return statsJson;
    }
    try {
      var tree = (com.fasterxml.jackson.databind.node.ObjectNode) STATS_JSON.readTree(statsJson);
      for (String key : List.of("minValues", "maxValues", "nullCount")) {
        if (tree.get(key) instanceof com.fasterxml.jackson.databind.node.ObjectNode o) {
          pruneEmpty(o);
        }
      }
      return STATS_JSON.writeValueAsString(tree);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(
          "Kernel wrote stats that are not JSON: " + statsJson, e);
    }
  }

  private static boolean pruneEmpty(com.fasterxml.jackson.databind.node.ObjectNode o) {
    var fields = o.fields();
    while (fields.hasNext()) {
      var e = fields.next();
      if (e.getValue() instanceof com.fasterxml.jackson.databind.node.ObjectNode child
          && pruneEmpty(child)) {
        fields.remove();
      }
    }
    return o.isEmpty();
  }

  /**
   * A partition value of the log as Kernel reads it: typed, a timestamp's {@code 2024-01-01
   * 00:00:00} form taken as UTC and its ISO form ({@code 2024-01-01T00:00:00.000000Z}) as the
   * instant it names, a {@code timestamp_ntz} as wall-clock time.
   */
  public static Literal partitionLiteral(io.delta.kernel.types.DataType type, String value) {
    return PartitionUtils.literalForPartitionValue(type, value);
  }

  /**
   * The Parquet field id a column-mapped table gives the {@code element} of a list or the
   * {@code key} or {@code value} of a map, stored with its nearest struct field ({@code
   * parquet.field.nested.ids} of the physical schema, as {@code delta.columnMapping.nested.ids}
   * in the log: icebergCompatV2 tables declare them, others do not).
   *
   * @param nearestStructField the physical field the list or map is, or is nested in (through lists and maps only)
   * @param relativePath that field's physical name followed by {@code .element}, {@code .key} or
   *     {@code .value} per level, e.g. {@code col-1.element.key}
   */
  public static Optional<Long> parquetNestedFieldId(
      StructField nearestStructField, String relativePath) {
    var nested = nearestStructField
        .getMetadata()
        .getMetadata(ColumnMapping.PARQUET_FIELD_NESTED_IDS_METADATA_KEY);
    return nested == null ? Optional.empty() : Optional.ofNullable(nested.getLong(relativePath));
  }

  /**
   * Kernel's file-system committer (put-if-absent of the next log entry), with the commit's
   * {@code commitInfo} naming the operation {@code operation} with its parameters and metrics:
   * Kernel's public operations have no OPTIMIZE.
   */
  public static Committer committerNaming(
      String operation,
      Map<String, String> parameters,
      java.util.function.Supplier<Map<String, String>> metrics) {
    return new Committer() {
      @Override
      public CommitResponse commit(
          Engine engine, CloseableIterator<Row> actions, CommitMetadata metadata)
          throws CommitFailedException {
        CloseableIterator<Row> renamed = actions.map(row -> {
          if (row.isNullAt(SingleAction.COMMIT_INFO_ORDINAL)) {
            return row;
          }
          CommitInfo ci = metadata.getCommitInfo();
          CommitInfo optimize = new CommitInfo(
              ci.getInCommitTimestamp(),
              ci.getTimestamp(),
              ci.getEngineInfo(),
              Optional.of(operation),
              parameters,
              Optional.of(false),
              ci.getTxnId(),
              metrics.get());
          return SingleAction.createCommitInfoSingleAction(optimize.toRow());
        });
        return DefaultFileSystemManagedTableOnlyCommitter.INSTANCE.commit(
            engine, renamed, metadata);
      }
    };
  }

  /**
   * The row positions a file's deletion vector deletes, decoded by Kernel from wherever the
   * vector lives (inline, a UUID-named file, an absolute path).
   *
   * @param deletionVector the {@code deletionVector} struct of the file's {@code add} action
   */
  public static long[] deletedPositions(Engine engine, String tableUri, Row deletionVector) {
    return DeletionVectorUtils.loadNewDvAndBitmap(
            engine, tableUri, DeletionVectorDescriptor.fromRow(deletionVector))
        ._2
        .toArray();
  }

  /**
   * A Parquet file written outside Kernel as Kernel's own writer reports the files it writes:
   * numRecords, and min, max and null count of {@code statsColumns} read from the file's footer
   * by the same reader Kernel's writer uses.
   *
   * @param dataSchema the file's physical schema (the table's data columns)
   */
  public static DataFileStatus withKernelStats(
      org.apache.hadoop.conf.Configuration conf,
      String kernelPath,
      long size,
      long modificationTime,
      StructType dataSchema,
      List<Column> statsColumns)
      throws IOException {
    var stats = ParquetStatsReader.readDataFileStatistics(
        new HadoopFileIO(conf).newInputFile(kernelPath, size), dataSchema, statsColumns);
    return new DataFileStatus(kernelPath, size, modificationTime, Optional.of(stats));
  }
}
