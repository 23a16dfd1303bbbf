package dev.resurfacer.iceberg.compact;

import dev.resurfacer.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.apache.iceberg.SortField;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.types.Types;

/** An {@link Ordering} checked against a table: the sort order to apply and stamp, or the z-order columns. */
sealed interface ResolvedOrdering {
  record None() implements ResolvedOrdering {}

  /** {@code stampedOrderId} is the table's id for this order, or 0 when the table does not declare it. */
  record Sorted(SortOrder order, int stampedOrderId) implements ResolvedOrdering {}

  record Z(List<Types.NestedField> columns) implements ResolvedOrdering {}

  /** The order to record on new data files, or null for none. */
  default SortOrder stamp(Table table) {
    if (this instanceof Sorted s && s.stampedOrderId() != 0) {
      return table.sortOrders().get(s.stampedOrderId());
    }
    return null;
  }

  static ResolvedOrdering resolve(Table table, Ordering ordering, Consumer<String> warn) {
    if (ordering instanceof Ordering.Sort s) {
      if (s.sortBy() == null) {
        SortOrder declared = table.sortOrder();
        if (declared.isUnsorted()) {
          throw new UsageException(
              "table " + table.name() + " declares no sort order: pass --sort-by");
        }
        return new Sorted(declared, declared.orderId());
      }
      SortOrder order = SortOrders.parse(table.schema(), s.sortBy(), table.name());
      return new Sorted(order, SortOrders.stampedId(table, order));
    }
    if (ordering instanceof Ordering.ZOrder z) {
      return resolveZ(table, z, warn);
    }
    return new None();
  }

  private static ResolvedOrdering resolveZ(Table table, Ordering.ZOrder z, Consumer<String> warn) {
    if (z.columns().isEmpty()) {
      throw new UsageException("--strategy zorder needs --columns a,b[,c...]");
    }
    List<Types.NestedField> columns = new ArrayList<>();
    for (String name : z.columns()) {
      Types.NestedField field = ColumnRefs.field(table.schema(), name, "--columns", table.name());
      Optional<String> why = ZValues.unsupported(field);
      if (why.isPresent()) {
        throw new UsageException(
            "--columns: z-order does not support " + name.trim() + " (" + why.get() + ")");
      }
      boolean identityPartition = table.spec().fields().stream()
          .anyMatch(p -> p.sourceId() == field.fieldId() && p.transform().isIdentity());
      if (identityPartition) {
        // every file of a partition holds one value of it: ordering by it cannot cluster anything
        warn.accept("z-order ignores " + field.name() + ": it is an identity partition column");
        continue;
      }
      columns.add(field);
    }
    if (columns.isEmpty()) {
      throw new UsageException(
          "--columns: every z-order column is an identity partition column; nothing to order by");
    }
    return new Z(List.copyOf(columns));
  }

  /** The ORDER BY terms DuckDB uses for this ordering, over columns named {@code c_<field id>}. */
  static Optional<String> duckDbUnsupported(ResolvedOrdering ordering) {
    if (ordering instanceof Sorted s) {
      for (SortField f : s.order().fields()) {
        String t = f.transform().toString();
        if (!(t.equals("identity")
            || t.equals("day")
            || t.equals("month")
            || t.equals("year")
            || t.equals("hour")
            || t.startsWith("truncate") && isIntegral(s.order().schema().findType(f.sourceId())))) {
          return Optional.of("sort transform " + t
              + " (applied exactly by Iceberg's comparator in the generic runner)");
        }
      }
    }
    if (ordering instanceof Z z) {
      for (Types.NestedField f : z.columns()) {
        if (f.type().typeId() == org.apache.iceberg.types.Type.TypeID.FLOAT
            || f.type().typeId() == org.apache.iceberg.types.Type.TypeID.DOUBLE) {
          return Optional.of("z-order on floating-point column " + f.name());
        }
        if (f.type().typeId() == org.apache.iceberg.types.Type.TypeID.FIXED) {
          return Optional.of("z-order on fixed column " + f.name());
        }
      }
    }
    return Optional.empty();
  }

  private static boolean isIntegral(org.apache.iceberg.types.Type type) {
    return type != null
        && (type.typeId() == org.apache.iceberg.types.Type.TypeID.INTEGER
            || type.typeId() == org.apache.iceberg.types.Type.TypeID.LONG);
  }

  static String describe(ResolvedOrdering ordering) {
    if (ordering instanceof Sorted s) {
      return "sort "
          + s.order().fields().stream().map(Object::toString).collect(Collectors.joining(", "))
          + (s.stampedOrderId() == 0
              ? " (not a declared order: files unstamped)"
              : " (order id " + s.stampedOrderId() + ")");
    }
    if (ordering instanceof Z z) {
      return "z-order "
          + z.columns().stream().map(Types.NestedField::name).collect(Collectors.joining(", "));
    }
    return "bin-pack";
  }
}
