package dev.resurfacer.delta.compact;

import dev.resurfacer.delta.kernel.KernelInternals;
import io.delta.kernel.Snapshot;
import io.delta.kernel.types.StructField;
import io.delta.kernel.types.StructType;
import java.util.ArrayList;
import java.util.List;

/**
 * A table's columns minus its partition columns, as data files hold them.
 *
 * @param names the columns' logical names
 * @param logical their logical schema (what readers see)
 * @param physical the same columns in the same order as data files hold them: physical names and
 *     Parquet field ids on a column-mapped table, the logical schema otherwise
 */
record DataColumns(List<String> names, StructType logical, StructType physical) {
  DataColumns {
    names = List.copyOf(names);
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
    return new DataColumns(names, new StructType(logical), new StructType(physical));
  }

  /** The physical field of logical column {@code name}. */
  StructField physicalOf(String name) {
    return physical.at(names.indexOf(name));
  }

  List<String> physicalNames() {
    return physical.fieldNames();
  }
}
