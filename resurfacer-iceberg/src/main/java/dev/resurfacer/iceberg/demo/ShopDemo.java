package dev.resurfacer.iceberg.demo;

import dev.resurfacer.iceberg.write.TableWrites;
import dev.resurfacer.iceberg.write.TableWrites.Position;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;

/**
 * The demo's own small domain: a web shop's {@code shop.orders} table, ingested the way streaming
 * writers do it (many small appends a day, merge-on-read updates as position deletes, cancellations
 * as equality deletes). Deterministic: the same seed and day give the same rows.
 */
public final class ShopDemo {
  public static final TableIdentifier ORDERS = TableIdentifier.of("shop", "orders");
  static final String DAY_PROPERTY = "resurfacer.demo.days";
  static final LocalDate FIRST_DAY = LocalDate.of(2026, 10, 1);
  static final int APPENDS_PER_DAY = 30;
  static final int ROWS_PER_APPEND = 300;
  static final int UPDATES_PER_ROUND = 60;
  static final int CANCELLATIONS_PER_DAY = 40;
  static final long IDS_PER_DAY = 1_000_000L;

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "order_id", Types.LongType.get()),
      Types.NestedField.required(2, "customer_id", Types.LongType.get()),
      Types.NestedField.required(3, "product", Types.StringType.get()),
      Types.NestedField.required(4, "quantity", Types.IntegerType.get()),
      Types.NestedField.required(5, "price", Types.DecimalType.of(10, 2)),
      Types.NestedField.required(6, "status", Types.StringType.get()),
      Types.NestedField.required(7, "ordered_at", Types.TimestampType.withZone()));

  private static final String[] PRODUCTS = {
    "kettle",
    "teapot",
    "mug",
    "grinder",
    "scale",
    "filter",
    "beans-1kg",
    "beans-250g",
    "tamper",
    "milk-jug"
  };

  private final Catalog catalog;
  private final long seed;

  public ShopDemo(Catalog catalog, long seed) {
    this.catalog = catalog;
    this.seed = seed;
  }

  /** What one day of ingestion did. */
  public record DayReport(
      int day,
      LocalDate date,
      int appends,
      long rowsAppended,
      int positionDeleteFiles,
      long rowsUpdated,
      int equalityDeleteFiles,
      long rowsCancelled,
      int commits) {}

  /** One analytic query's answer and how many files it had to open. */
  public record QueryResult(
      String question, List<String> answer, long dataFilesRead, long deleteFilesRead) {}

  /** Drops the demo table (and its files) and creates it empty. */
  public Table reset() {
    if (catalog.tableExists(ORDERS)) {
      catalog.dropTable(ORDERS, true);
    }
    if (catalog instanceof SupportsNamespaces ns && !ns.namespaceExists(Namespace.of("shop"))) {
      ns.createNamespace(Namespace.of("shop"));
    }
    PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ordered_at").build();
    return catalog
        .buildTable(ORDERS, SCHEMA)
        .withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, "2")
        .withProperty(TableProperties.DELETE_MODE, "merge-on-read")
        .withProperty(TableProperties.UPDATE_MODE, "merge-on-read")
        .withProperty(DAY_PROPERTY, "0")
        .create();
  }

  public Table table() {
    return catalog.loadTable(ORDERS);
  }

  public static int daysIngested(Table table) {
    return Integer.parseInt(table.properties().getOrDefault(DAY_PROPERTY, "0"));
  }

  /** Ingests the next day: many small appends, two rounds of updates, one round of cancellations. */
  public DayReport nextDay() {
    Table table = catalog.tableExists(ORDERS) ? table() : reset();
    int day = daysIngested(table) + 1;
    LocalDate date = FIRST_DAY.plusDays(day - 1);
    Random rng = new Random(seed * 7919 + day);
    long dayStartMicros = date.atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000L;
    long sliceMicros = 86_400L * 1_000_000L / APPENDS_PER_DAY;

    Map<DataFile, List<Record>> todays = new LinkedHashMap<>();
    long nextId = day * IDS_PER_DAY;
    int commits = 0;
    for (int a = 0; a < APPENDS_PER_DAY; a++) {
      List<Record> rows = new ArrayList<>(ROWS_PER_APPEND);
      for (int i = 0; i < ROWS_PER_APPEND; i++) {
        long ts = dayStartMicros + a * sliceMicros + (long) (rng.nextDouble() * sliceMicros);
        rows.add(order(
            nextId++,
            1 + rng.nextInt(5000),
            PRODUCTS[rng.nextInt(PRODUCTS.length)],
            1 + rng.nextInt(4),
            price(rng),
            "placed",
            ts));
      }
      rows.sort(java.util.Comparator.comparingLong(
          r -> ((OffsetDateTime) r.getField("ordered_at")).toInstant().toEpochMilli()));
      DataFile file = TableWrites.writeData(table, rows).get(0);
      table.newAppend().appendFile(file).commit();
      commits++;
      todays.put(file, rows);
    }

    int posFiles = 0;
    long updated = 0;
    List<DataFile> files = new ArrayList<>(todays.keySet());
    Set<Long> touched = new HashSet<>();
    for (String newStatus : new String[] {"shipped", "delivered"}) {
      List<Position> positions = new ArrayList<>();
      List<Record> replacements = new ArrayList<>();
      while (positions.size() < UPDATES_PER_ROUND) {
        DataFile f = files.get(rng.nextInt(files.size()));
        int pos = rng.nextInt(ROWS_PER_APPEND);
        Record old = todays.get(f).get(pos);
        if (!touched.add((Long) old.getField("order_id"))) {
          continue;
        }
        positions.add(new Position(f.location(), pos));
        Record replacement = old.copy();
        replacement.setField("status", newStatus);
        replacements.add(replacement);
      }
      DataFile any = files.get(0);
      DeleteFile deletes =
          TableWrites.writePositionDeletes(table, table.spec(), any.partition(), positions);
      RowDelta delta = table.newRowDelta().addDeletes(deletes);
      TableWrites.writeData(table, replacements).forEach(delta::addRows);
      delta.commit();
      commits++;
      posFiles++;
      updated += positions.size();
    }

    // Cancellations reach back one day: equality deletes on order_id, one file per partition.
    Schema idOnly = SCHEMA.select("order_id");
    Map<Integer, List<Record>> cancelByDay = new TreeMap<>();
    Set<Long> cancelled = new HashSet<>();
    while (cancelled.size() < CANCELLATIONS_PER_DAY) {
      int d = day > 1 && rng.nextBoolean() ? day - 1 : day;
      long id = d * IDS_PER_DAY + rng.nextInt(APPENDS_PER_DAY * ROWS_PER_APPEND);
      if (cancelled.add(id)) {
        Record r = GenericRecord.create(idOnly);
        r.setField("order_id", id);
        cancelByDay.computeIfAbsent(d, k -> new ArrayList<>()).add(r);
      }
    }
    RowDelta cancel = table.newRowDelta();
    int eqFiles = 0;
    for (Map.Entry<Integer, List<Record>> e : cancelByDay.entrySet()) {
      PartitionKey key = new PartitionKey(table.spec(), table.schema());
      key.set(0, (int) FIRST_DAY.plusDays(e.getKey() - 1).toEpochDay());
      cancel.addDeletes(
          TableWrites.writeEqualityDeletes(table, table.spec(), key, idOnly, e.getValue()));
      eqFiles++;
    }
    cancel.commit();
    commits++;
    table.updateProperties().set(DAY_PROPERTY, Integer.toString(day)).commit();
    return new DayReport(
        day,
        date,
        APPENDS_PER_DAY,
        (long) APPENDS_PER_DAY * ROWS_PER_APPEND,
        posFiles,
        updated,
        eqFiles,
        cancelled.size(),
        commits);
  }

  /** Runs the demo's analytic queries; answers are computed from Iceberg's delete-aware reader. */
  public List<QueryResult> query() {
    Table table = table();
    int days = daysIngested(table);
    List<QueryResult> results = new ArrayList<>();
    if (days == 0) {
      return results;
    }
    LocalDate last = FIRST_DAY.plusDays(days - 1);
    Expression lastDay = Expressions.and(
        Expressions.greaterThanOrEqual("ordered_at", micros(last)),
        Expressions.lessThan("ordered_at", micros(last.plusDays(1))));
    long[] count = {0};
    BigDecimal[] revenue = {BigDecimal.ZERO};
    long[] files = scan(table, lastDay, r -> {
      count[0]++;
      revenue[0] = revenue[0].add(((BigDecimal) r.getField("price"))
          .multiply(BigDecimal.valueOf((Integer) r.getField("quantity"))));
    });
    results.add(new QueryResult(
        "orders and revenue on " + last,
        List.of(count[0] + " orders, " + revenue[0] + " revenue"),
        files[0],
        files[1]));

    Map<String, Long> byStatus = new TreeMap<>();
    files = scan(
        table,
        Expressions.alwaysTrue(),
        r -> byStatus.merge((String) r.getField("status"), 1L, Long::sum));
    List<String> statusLines = new ArrayList<>();
    byStatus.forEach((s, n) -> statusLines.add(s + ": " + n));
    results.add(new QueryResult("orders by status, all days", statusLines, files[0], files[1]));

    Expression customers = Expressions.and(
        Expressions.greaterThanOrEqual("customer_id", 1000L),
        Expressions.lessThan("customer_id", 1100L));
    Map<String, Long> qty = new HashMap<>();
    files = scan(
        table,
        customers,
        r -> qty.merge(
            (String) r.getField("product"), (long) (Integer) r.getField("quantity"), Long::sum));
    List<String> top = qty.entrySet().stream()
        .sorted(Map.Entry.<String, Long>comparingByValue()
            .reversed()
            .thenComparing(Map.Entry.comparingByKey()))
        .limit(3)
        .map(e -> e.getKey() + ": " + e.getValue())
        .toList();
    results.add(new QueryResult("top 3 products for customers 1000-1099", top, files[0], files[1]));

    LocalDate first = FIRST_DAY;
    Expression firstDay = Expressions.and(
        Expressions.greaterThanOrEqual("ordered_at", micros(first)),
        Expressions.lessThan("ordered_at", micros(first.plusDays(1))));
    long[] cancelledFirstDay = {0};
    files = scan(table, firstDay, r -> cancelledFirstDay[0]++);
    results.add(new QueryResult(
        "orders still standing from " + first,
        List.of(cancelledFirstDay[0] + " of "
            + (APPENDS_PER_DAY * ROWS_PER_APPEND + 2 * UPDATES_PER_ROUND) + " rows written"),
        files[0],
        files[1]));
    return results;
  }

  private static long[] scan(Table table, Expression filter, Consumer<Record> sink) {
    Set<String> data = new HashSet<>();
    Set<String> deletes = new HashSet<>();
    try (CloseableIterable<FileScanTask> tasks = table.newScan().filter(filter).planFiles()) {
      for (FileScanTask t : tasks) {
        data.add(t.file().location());
        t.deletes().forEach(d -> deletes.add(d.location()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    org.apache.iceberg.expressions.Evaluator residual =
        new org.apache.iceberg.expressions.Evaluator(table.schema().asStruct(), filter);
    org.apache.iceberg.data.InternalRecordWrapper wrapper =
        new org.apache.iceberg.data.InternalRecordWrapper(table.schema().asStruct());
    try (CloseableIterable<Record> rows =
        IcebergGenerics.read(table).where(filter).build()) {
      for (Record r : rows) {
        if (residual.eval(wrapper.wrap(r))) {
          sink.accept(r);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new long[] {data.size(), deletes.size()};
  }

  private static Record order(
      long id,
      long customer,
      String product,
      int quantity,
      BigDecimal price,
      String status,
      long micros) {
    Record r = GenericRecord.create(SCHEMA);
    r.setField("order_id", id);
    r.setField("customer_id", customer);
    r.setField("product", product);
    r.setField("quantity", quantity);
    r.setField("price", price);
    r.setField("status", status);
    r.setField(
        "ordered_at",
        OffsetDateTime.ofInstant(
            Instant.ofEpochSecond(micros / 1_000_000L, (micros % 1_000_000L) * 1000),
            ZoneOffset.UTC));
    return r;
  }

  private static BigDecimal price(Random rng) {
    return BigDecimal.valueOf(199 + rng.nextInt(20_000), 2).setScale(2, RoundingMode.UNNECESSARY);
  }

  private static long micros(LocalDate date) {
    return date.atStartOfDay(ZoneOffset.UTC).toEpochSecond() * 1_000_000L;
  }
}
