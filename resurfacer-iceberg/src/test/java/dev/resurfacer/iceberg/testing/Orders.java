package dev.resurfacer.iceberg.testing;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/** A small day-partitioned table (id, day, note) and its rows, for tests that need real files. */
public final class Orders {
  public static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "day", Types.DateType.get()),
      Types.NestedField.optional(3, "note", Types.StringType.get()));
  public static final PartitionSpec SPEC =
      PartitionSpec.builderFor(SCHEMA).identity("day").build();
  public static final LocalDate DAY0 = LocalDate.of(2026, 1, 1);

  private Orders() {}

  public static Table create(Catalog catalog, String namespace, String name, int formatVersion) {
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(Namespace.of(namespace))) {
      ns.createNamespace(Namespace.of(namespace));
    }
    return catalog
        .buildTable(TableIdentifier.of(namespace, name), SCHEMA)
        .withPartitionSpec(SPEC)
        .withProperties(Map.of(TableProperties.FORMAT_VERSION, String.valueOf(formatVersion)))
        .create();
  }

  /** {@code n} rows with ids from {@code start}, all on day {@code DAY0 + day}. */
  public static List<Record> rows(long start, int n, int day) {
    List<Record> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Record r = GenericRecord.create(SCHEMA);
      r.setField("id", start + i);
      r.setField("day", DAY0.plusDays(day));
      r.setField("note", "row-" + (start + i));
      out.add(r);
    }
    return out;
  }
}
