package dev.resurfacer.iceberg.stats;

import dev.resurfacer.UsageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.datasketches.common.Family;
import org.apache.datasketches.theta.CompactSketch;
import org.apache.datasketches.theta.UpdateSketch;
import org.apache.iceberg.Accessor;
import org.apache.iceberg.GenericBlobMetadata;
import org.apache.iceberg.GenericStatisticsFile;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StatisticsFile;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.puffin.Blob;
import org.apache.iceberg.puffin.Puffin;
import org.apache.iceberg.puffin.PuffinCompressionCodec;
import org.apache.iceberg.puffin.PuffinWriter;
import org.apache.iceberg.puffin.StandardBlobTypes;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/**
 * Per-column distinct-value estimates in a Puffin statistics file set on a snapshot — the file
 * Spark's {@code compute_table_stats} writes and Spark and Trino plan with: one
 * {@code apache-datasketches-theta-v1} blob per column (an Alpha-family theta sketch, compact,
 * ZSTD-compressed) fed with Iceberg's single-value serialization of every non-null live value (deletes
 * applied, Iceberg's generic reader), and its estimate in the {@code ndv} property. Memory: one sketch
 * per column (4096 nominal entries), rows streamed.
 *
 * <pre>
 * TableStatistics.Plan plan = TableStatistics.plan(table, List.of("id", "day")); // names the columns, reads no data
 * TableStatistics.Result r = TableStatistics.execute(plan);                      // sketches them and commits
 * </pre>
 */
public final class TableStatistics {
  /** The blob property holding the estimate, as Spark names it. */
  public static final String NDV_PROPERTY = "ndv";

  private TableStatistics() {}

  public record ColumnNdv(String column, int fieldId, long ndv) {}

  /** Columns estimated (empty estimates in a preview), the snapshot, and the file written. */
  public record Result(
      String table,
      boolean committed,
      Long snapshotId,
      List<ColumnNdv> columns,
      String path,
      long fileBytes) {}

  /** The columns to estimate at {@code snapshot} (null for a table without one), as the schema of that snapshot has them. */
  public record Plan(
      Table table, Snapshot snapshot, Schema schema, List<Types.NestedField> fields) {
    /** The plan as a result that committed nothing: the columns, with no estimate yet. */
    public Result preview() {
      if (snapshot == null) {
        return new Result(table.name(), false, null, List.of(), null, 0);
      }
      return new Result(
          table.name(),
          false,
          snapshot.snapshotId(),
          fields.stream()
              .map(f -> new ColumnNdv(schema.findColumnName(f.fieldId()), f.fieldId(), -1))
              .toList(),
          null,
          0);
    }
  }

  /** Resolves the columns (all primitive ones when {@code columnNames} is empty); reads no data, changes nothing. */
  public static Plan plan(Table table, List<String> columnNames) {
    table.refresh();
    Snapshot snapshot = table.currentSnapshot();
    Schema schema = snapshot == null ? table.schema() : table.schemas().get(snapshot.schemaId());
    return new Plan(table, snapshot, schema, columns(table, schema, columnNames));
  }

  /** Sketches the plan's columns over the live rows and sets the statistics file on the snapshot. */
  public static Result execute(Plan plan) {
    Table table = plan.table();
    Snapshot snapshot = plan.snapshot();
    Schema schema = plan.schema();
    List<Types.NestedField> fields = plan.fields();
    if (snapshot == null) {
      return plan.preview();
    }
    List<CompactSketch> sketches = sketch(table, snapshot, schema, fields);
    String location = ((HasTableOperations) table)
        .operations()
        .metadataFileLocation(snapshot.snapshotId() + "-" + UUID.randomUUID() + ".stats");
    OutputFile out = table.io().newOutputFile(location);
    List<ColumnNdv> estimates = new ArrayList<>();
    StatisticsFile file;
    try (PuffinWriter writer = Puffin.write(out).createdBy("resurfacer").build()) {
      for (int i = 0; i < fields.size(); i++) {
        Types.NestedField field = fields.get(i);
        long ndv = (long) sketches.get(i).getEstimate();
        writer.add(new Blob(
            StandardBlobTypes.APACHE_DATASKETCHES_THETA_V1,
            List.of(field.fieldId()),
            snapshot.snapshotId(),
            snapshot.sequenceNumber(),
            ByteBuffer.wrap(sketches.get(i).toByteArray()),
            PuffinCompressionCodec.ZSTD,
            Map.of(NDV_PROPERTY, Long.toString(ndv))));
        estimates.add(new ColumnNdv(schema.findColumnName(field.fieldId()), field.fieldId(), ndv));
      }
      writer.finish();
      file = new GenericStatisticsFile(
          snapshot.snapshotId(),
          location,
          writer.fileSize(),
          writer.footerSize(),
          GenericBlobMetadata.from(writer.writtenBlobsMetadata()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      table.updateStatistics().setStatistics(file).commit();
    } catch (CommitStateUnknownException e) {
      throw e;
    } catch (RuntimeException e) {
      // deleted only when the commit certainly failed (as Iceberg's own cleanup decides)
      if (e instanceof org.apache.iceberg.exceptions.CleanableFailure) {
        table.io().deleteFile(location);
      }
      throw e;
    }
    table.refresh();
    return new Result(
        table.name(), true, snapshot.snapshotId(), estimates, location, file.fileSizeInBytes());
  }

  private static List<Types.NestedField> columns(Table table, Schema schema, List<String> names) {
    if (names.isEmpty()) {
      return schema.columns().stream().filter(f -> f.type().isPrimitiveType()).toList();
    }
    List<Types.NestedField> out = new ArrayList<>();
    for (String name : names) {
      Types.NestedField field;
      try {
        field = dev.resurfacer.iceberg.compact.ColumnRefs.field(
            schema, name, "compute-stats --columns", table.name());
      } catch (UsageException e) {
        throw new UsageException(table.name() + " has no column '" + name + "' (columns: "
            + String.join(
                ", ",
                schema.columns().stream()
                    .map(c -> dev.resurfacer.names.Identifiers.quote(c.name()))
                    .toList())
            + ")");
      }
      if (!field.type().isPrimitiveType()) {
        throw new UsageException("column '" + name + "' is a "
            + field.type().typeId().name().toLowerCase(java.util.Locale.ROOT)
            + "; distinct-value sketches are computed for primitive columns only");
      }
      out.add(field);
    }
    return out;
  }

  private static List<CompactSketch> sketch(
      Table table, Snapshot snapshot, Schema schema, List<Types.NestedField> fields) {
    Schema projection = schema.select(
        fields.stream().map(f -> schema.findColumnName(f.fieldId())).toList());
    List<UpdateSketch> sketches = new ArrayList<>();
    List<Accessor<StructLike>> accessors = new ArrayList<>();
    for (Types.NestedField field : fields) {
      sketches.add(UpdateSketch.builder().setFamily(Family.ALPHA).build());
      accessors.add(projection.accessorForField(field.fieldId()));
    }
    InternalRecordWrapper internal = new InternalRecordWrapper(projection.asStruct());
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table)
        .useSnapshot(snapshot.snapshotId())
        .project(projection)
        .build()) {
      for (Record row : rows) {
        StructLike values = internal.wrap(row);
        for (int i = 0; i < fields.size(); i++) {
          Object value = accessors.get(i).get(values);
          if (value != null) {
            Object serializable = value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
            sketches.get(i).update(Conversions.toByteBuffer(fields.get(i).type(), serializable));
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sketches.stream().map(UpdateSketch::compact).toList();
  }
}
