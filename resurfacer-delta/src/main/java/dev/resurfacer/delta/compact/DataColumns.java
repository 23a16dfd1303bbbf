package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import io.delta.kernel.Snapshot;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.List;

/**
 * A table's columns minus its partition columns, as data files hold them; and the partition
 * columns a new file holds after them where the table materializes them (icebergCompatV2: as
 * delta-spark writes them, in partition column order, for Iceberg readers to find).
 *
 * @param names the columns' logical names
 * @param logical their logical schema (what readers see)
 * @param physical the same columns in the same order as data files hold them: physical names and
 *     Parquet field ids on a column-mapped table, the logical schema otherwise
 * @param partitionNames the materialized partition columns' logical names, in partition column order (none unless materialized)
 * @param partitionPhysical those columns as data files hold them
 */
record DataColumns(
    List<String> names,
    StructType logical,
    StructType physical,
    List<String> partitionNames,
    StructType partitionPhysical) {
  DataColumns {
    names = List.copyOf(names);
    partitionNames = List.copyOf(partitionNames);
  }

  static DataColumns of(Snapshot snapshot) {
    List<String> partitionColumns = snapshot.getPartitionColumnNames();
    StructType schema = snapshot.getSchema();
    StructType physicalSchema = KernelInternals.physicalSchema(snapshot);
    List<String> names = new ArrayList<>();
    List<StructField> logical = new ArrayList<>();
    List<StructField> physical = new ArrayList<>();
    // the physical schema lists the fields in the logical schema's order, renamed
    for (int i = 0; i < schema.length(); i++) {
      StructField f = schema.at(i);
      if (!partitionColumns.contains(f.getName())) {
        names.add(f.getName());
        logical.add(f);
        physical.add(physicalSchema.at(i));
      }
    }
    List<StructField> partitions = new ArrayList<>();
    if (materializesPartitionColumns(snapshot)) {
      for (String c : partitionColumns) {
        partitions.add(physicalSchema.at(schema.indexOf(c)));
      }
    }
    return new DataColumns(
        names,
        new StructType(logical),
        new StructType(physical),
        materializesPartitionColumns(snapshot) ? partitionColumns : List.of(),
        new StructType(partitions));
  }

  /** delta-spark writes the partition columns into the data files of icebergCompat tables. */
  static boolean materializesPartitionColumns(Snapshot snapshot) {
    return "true"
        .equalsIgnoreCase(snapshot.getTableProperties().get(DeltaCompactor.ICEBERG_COMPAT_V2));
  }

  /** The physical field of logical column {@code name}. */
  StructField physicalOf(String name) {
    return physical.at(names.indexOf(name));
  }

  List<String> physicalNames() {
    return physical.fieldNames();
  }

  /** What a new data file holds: the data columns, then the materialized partition columns. */
  StructType written() {
    List<StructField> fields = new ArrayList<>(physical.fields());
    fields.addAll(partitionPhysical.fields());
    return new StructType(fields);
  }

  /** The logical names of {@link #written}'s columns, in its order. */
  List<String> writtenNames() {
    List<String> out = new ArrayList<>(names);
    out.addAll(partitionNames);
    return out;
  }
}
