package dev.resurfacer.iceberg.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.iceberg.compact.CompactionResult.Status;
import dev.resurfacer.iceberg.testing.Content;
import dev.resurfacer.iceberg.write.TableWrites;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.hadoop.HadoopCatalog;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Differential fuzzing of compaction: random schemas (every primitive type, structs, lists, maps),
 * odd names, odd values, schema evolution and every delete kind, written by Iceberg's own writers;
 * the generic runner and auto (DuckDB where it is exact) must both leave the content Iceberg's
 * reader returns unchanged, value for value and type-tagged, and auto may only hand a group to the
 * generic runner for a reason DuckDB states up front, never because its output failed verification.
 *
 * <p>Cases: -Dfuzz.cases (30 in the default build, 3000 with -Plong); seed: -Dfuzz.seed (random by
 * default). Every run prints both; a failure names the case seed that reproduces it alone
 * ({@code -Dfuzz.seed=S -Dfuzz.cases=1}).
 */
class CompactionFuzzTest {
  static final int CASES = Integer.getInteger("fuzz.cases", 100);
  static final long SEED = Long.getLong("fuzz.seed", new Random().nextLong());

  @TempDir
  Path dir;

  @Test
  void bothRunnersKeepTheContentOfRandomTables() {
    record(String.format(
        Locale.ROOT,
        "compaction fuzz: %d cases, seed %d (replay: -Dfuzz.seed=%d)",
        CASES,
        SEED,
        SEED));
    // Iceberg's file-system catalog: real tables on local disk, and commits without a database
    // round trip, which keeps hundreds of cases fast
    HadoopCatalog catalog = new HadoopCatalog(
        dev.resurfacer.iceberg.catalog.Catalogs.localHadoopConf(),
        dir.resolve("warehouse").toString());
    Map<String, Integer> fallbacks = new java.util.TreeMap<>();
    for (int i = 0; i < CASES; i++) {
      long caseSeed = SEED + i;
      try {
        new Case(catalog, i, caseSeed, fallbacks).run();
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "fuzz case " + i + " failed; reproduce with -Dfuzz.seed=" + caseSeed
                + " -Dfuzz.cases=1: " + e.getMessage(),
            e);
      }
    }
    record(String.format(
        Locale.ROOT,
        "compaction fuzz: %d cases passed (seed %d); groups by runner: %s",
        CASES,
        SEED,
        fallbacks));
  }

  /** Test output goes to files under surefire: the count and seed also go to stderr and target/reliability-counts.txt. */
  private static void record(String line) {
    System.out.println(line);
    System.err.println(line);
    try {
      java.nio.file.Files.writeString(
          Path.of("target", "reliability-counts.txt"),
          line + System.lineSeparator(),
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static final String[] ODD_NAMES = {
    "a-b",
    "1st",
    "x.y",
    "filename",
    "file_row_number",
    "with space",
    "名前",
    "Ümlaut",
    "sel\"ect",
    "o'clock",
    "CamelCase"
  };

  /** One random table history, applied identically to two tables: one per runner. */
  private static final class Case {
    private final HadoopCatalog catalog;
    private final int index;
    private final Random random;
    private final Map<String, Integer> fallbacks;
    private final Set<String> usedNames = new HashSet<>();
    private int nextId = 2;
    private long nextRowId;

    Case(HadoopCatalog catalog, int index, long seed, Map<String, Integer> fallbacks) {
      this.catalog = catalog;
      this.index = index;
      this.random = new Random(seed);
      this.fallbacks = fallbacks;
    }

    void run() {
      int formatVersion = random.nextInt(3) == 0 ? 3 : 2;
      List<Types.NestedField> columns = new ArrayList<>();
      columns.add(Types.NestedField.required(1, "id", Types.LongType.get()));
      usedNames.add("id");
      int width = 1 + random.nextInt(6);
      for (int c = 0; c < width; c++) {
        columns.add(Types.NestedField.optional(nextId++, name(), type(2)));
      }
      Schema schema = new Schema(columns);
      PartitionSpec spec = spec(schema);
      Table generic = create("g" + index, schema, spec, formatVersion);
      Table auto = create("a" + index, schema, spec, formatVersion);
      List<Table> both = List.of(generic, auto);

      int files = 2 + random.nextInt(3);
      for (int f = 0; f < files; f++) {
        writeFile(both);
      }
      if (random.nextBoolean()) {
        Runnable evolution = evolution(generic.schema(), generic.spec(), formatVersion);
        if (evolution != null) {
          for (Table t : both) {
            current = t;
            evolution.run();
          }
          for (int f = 0; f < 1 + random.nextInt(2); f++) {
            writeFile(both);
          }
        }
      }
      if (random.nextInt(3) > 0) {
        deletes(both, formatVersion);
      }

      CompactionOptions options = CompactionOptions.defaults()
          .withOption("min-input-files", "1")
          .withOption("rewrite-all", "true")
          .withMemory(64L << 20);
      List<String> before = Content.of(generic);
      assertThat(Content.of(auto)).isEqualTo(before);

      CompactionResult g = Compaction.execute(
          Compaction.plan(generic, options.withRunner(CompactionOptions.Runner.GENERIC)));
      assertThat(g.groups())
          .allSatisfy(r ->
              assertThat(r.status()).as("generic: " + r.message()).isEqualTo(Status.COMMITTED));
      assertThat(Content.of(generic))
          .as("generic runner, schema " + generic.schema())
          .isEqualTo(before);

      CompactionResult a = Compaction.execute(Compaction.plan(auto, options));
      assertThat(a.groups()).allSatisfy(r -> {
        assertThat(r.status()).as("auto: " + r.message()).isEqualTo(Status.COMMITTED);
        if (r.message() != null) {
          // a fallback is only acceptable for a reason DuckDB states before writing anything
          assertThat(r.message())
              .as("auto fell back, schema " + auto.schema())
              .contains("DuckDB cannot write this group exactly")
              .doesNotContain("failed verification");
          fallbacks.merge("generic after DuckDB declined float values", 1, Integer::sum);
        } else {
          fallbacks.merge(r.runner(), 1, Integer::sum);
        }
      });
      assertThat(Content.of(auto)).as("auto, schema " + auto.schema()).isEqualTo(before);
    }

    private Table current;

    private Table create(String name, Schema schema, PartitionSpec spec, int formatVersion) {
      // random draws happen once per case, never per table: both tables must get identical
      // histories
      return catalog
          .buildTable(TableIdentifier.of("db", name), schema)
          .withPartitionSpec(spec)
          .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion))
          .create();
    }

    private String name() {
      while (true) {
        String n = random.nextInt(3) == 0
            ? ODD_NAMES[random.nextInt(ODD_NAMES.length)]
            : "c" + random.nextInt(50);
        if (random.nextInt(8) == 0 && !usedNames.isEmpty()) {
          // a case twin of an existing name
          String existing = usedNames.iterator().next();
          n = existing.equals(existing.toUpperCase(Locale.ROOT))
              ? existing.toLowerCase(Locale.ROOT)
              : existing.toUpperCase(Locale.ROOT);
        }
        if (usedNames.add(n)) {
          return n;
        }
      }
    }

    private Type type(int depth) {
      int pick = random.nextInt(depth > 0 ? 20 : 16);
      return switch (pick) {
        case 0 -> Types.BooleanType.get();
        case 1 -> Types.IntegerType.get();
        case 2 -> Types.LongType.get();
        case 3, 4 -> Types.FloatType.get();
        case 5, 6 -> Types.DoubleType.get();
        case 7 ->
          Types.DecimalType.of(1 + random.nextInt(38), 0).precision() < 3
              ? Types.DecimalType.of(9, 2)
              : Types.DecimalType.of(38, 10);
        case 8 -> Types.DateType.get();
        case 9 -> Types.TimeType.get();
        case 10 -> Types.TimestampType.withoutZone();
        case 11 -> Types.TimestampType.withZone();
        case 12, 13 -> Types.StringType.get();
        case 14 -> Types.UUIDType.get();
        case 15 ->
          random.nextBoolean()
              ? Types.BinaryType.get()
              : Types.FixedType.ofLength(1 + random.nextInt(8));
        case 16, 17 -> {
          List<Types.NestedField> fields = new ArrayList<>();
          Set<String> names = new HashSet<>();
          int n = 1 + random.nextInt(3);
          for (int i = 0; i < n; i++) {
            String name =
                random.nextInt(3) == 0 ? ODD_NAMES[random.nextInt(ODD_NAMES.length)] : "f" + i;
            if (names.add(name)) {
              fields.add(Types.NestedField.optional(nextId++, name, type(depth - 1)));
            }
          }
          yield Types.StructType.of(fields);
        }
        case 18 -> Types.ListType.ofOptional(nextId++, type(depth - 1));
        default ->
          Types.MapType.ofOptional(nextId++, nextId++, Types.StringType.get(), type(depth - 1));
      };
    }

    private PartitionSpec spec(Schema schema) {
      List<Types.NestedField> strings = schema.columns().stream()
          .filter(f -> f.type().typeId() == Type.TypeID.STRING)
          .toList();
      return switch (random.nextInt(4)) {
        case 0 ->
          strings.isEmpty()
              ? PartitionSpec.unpartitioned()
              : PartitionSpec.builderFor(schema).identity(strings.get(0).name()).build();
        case 1 -> PartitionSpec.builderFor(schema).bucket("id", 2).build();
        default -> PartitionSpec.unpartitioned();
      };
    }

    private void writeFile(List<Table> tables) {
      Schema schema = tables.get(0).schema();
      List<Record> rows = new ArrayList<>();
      int n = 1 + random.nextInt(30);
      for (int i = 0; i < n; i++) {
        Record r = GenericRecord.create(schema);
        r.set(0, nextRowId++);
        for (int c = 1; c < schema.columns().size(); c++) {
          r.set(c, value(schema.columns().get(c).type(), 2));
        }
        rows.add(r);
      }
      for (Table t : tables) {
        var append = t.newAppend();
        TableWrites.writeData(t, rows).forEach(append::appendFile);
        append.commit();
      }
    }

    /** Values that have broken rewrites before: signed zeros, NaN payloads, extremes, non-ASCII, nulls. */
    private Object value(Type type, int depth) {
      if (random.nextInt(8) == 0) {
        return null;
      }
      return switch (type.typeId()) {
        case BOOLEAN -> random.nextBoolean();
        case INTEGER -> pick(0, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, random.nextInt());
        case LONG -> pick(0L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, random.nextLong());
        case FLOAT ->
          pick(
              0.0f,
              -0.0f,
              Float.NaN,
              Float.intBitsToFloat(0x7fc00001),
              Float.MIN_VALUE,
              -Float.MAX_VALUE,
              Float.POSITIVE_INFINITY,
              random.nextFloat() * 100 - 50);
        case DOUBLE ->
          pick(
              0.0,
              -0.0,
              Double.NaN,
              Double.longBitsToDouble(0x7ff8000000000001L),
              Double.MIN_VALUE,
              Double.MAX_VALUE,
              Double.NEGATIVE_INFINITY,
              random.nextGaussian());
        case DECIMAL -> {
          Types.DecimalType d = (Types.DecimalType) type;
          BigInteger unscaled = new BigInteger(Math.min(120, d.precision() * 3), random)
              .mod(BigInteger.TEN.pow(d.precision()));
          yield new BigDecimal(random.nextBoolean() ? unscaled : unscaled.negate(), d.scale());
        }
        case DATE ->
          LocalDate.ofEpochDay(pick(0L, -719_162L, 2_932_896L, (long) random.nextInt(40_000)));
        case TIME ->
          LocalTime.ofNanoOfDay(pick(
              0L,
              86_399_999_999_000L,
              random.nextInt(86_400) * 1_000_000_000L + random.nextInt(1_000_000) * 1000L));
        case TIMESTAMP -> {
          LocalDateTime t = LocalDateTime.ofEpochSecond(
              pick(0L, -2_208_988_800L, 4_102_444_800L, (long) random.nextInt()),
              random.nextInt(1_000_000) * 1000,
              ZoneOffset.UTC);
          yield ((Types.TimestampType) type).shouldAdjustToUTC()
              ? OffsetDateTime.of(t, ZoneOffset.UTC)
              : t;
        }
        case STRING ->
          pick(
              "",
              "café",
              "日本語",
              "emoji \uD83D\uDE00",
              "a/b",
              "x y",
              "50%",
              "a:b",
              "line\nbreak",
              "z" + random.nextInt(5));
        case UUID -> new UUID(random.nextLong(), random.nextLong());
        case BINARY -> ByteBuffer.wrap(bytes(random.nextInt(6)));
        case FIXED -> bytes(((Types.FixedType) type).length());
        case STRUCT -> {
          Record r = GenericRecord.create(type.asStructType());
          List<Types.NestedField> fields = type.asStructType().fields();
          for (int i = 0; i < fields.size(); i++) {
            r.set(i, value(fields.get(i).type(), depth - 1));
          }
          yield r;
        }
        case LIST -> {
          List<Object> list = new ArrayList<>();
          for (int i = random.nextInt(4); i > 0; i--) {
            list.add(value(type.asListType().elementType(), depth - 1));
          }
          yield list;
        }
        case MAP -> {
          Map<Object, Object> map = new LinkedHashMap<>();
          for (int i = random.nextInt(4); i > 0; i--) {
            map.put("k" + random.nextInt(10), value(type.asMapType().valueType(), depth - 1));
          }
          yield map;
        }
        default -> throw new IllegalArgumentException(type.toString());
      };
    }

    @SafeVarargs
    private <T> T pick(T... options) {
      return options[random.nextInt(options.length)];
    }

    private byte[] bytes(int n) {
      byte[] b = new byte[n];
      random.nextBytes(b);
      return b;
    }

    /** One random schema change, applied to {@link #current}; null when none fits. */
    private Runnable evolution(Schema schema, PartitionSpec spec, int formatVersion) {
      List<Types.NestedField> top = schema.columns().subList(1, schema.columns().size());
      List<Runnable> options = new ArrayList<>();
      if (!top.isEmpty()) {
        Types.NestedField f = top.get(random.nextInt(top.size()));
        String renamed = name();
        options.add(() -> current.updateSchema().renameColumn(f.name(), renamed).commit());
        if (spec.fields().stream().noneMatch(p -> p.sourceId() == f.fieldId())) {
          options.add(() -> current.updateSchema().deleteColumn(f.name()).commit());
        }
        if (f.type().typeId() == Type.TypeID.INTEGER) {
          options.add(() -> current
              .updateSchema()
              .updateColumn(f.name(), Types.LongType.get())
              .commit());
        }
        if (f.type().typeId() == Type.TypeID.FLOAT) {
          options.add(() -> current
              .updateSchema()
              .updateColumn(f.name(), Types.DoubleType.get())
              .commit());
        }
        if (f.type().typeId() == Type.TypeID.STRUCT
            && !f.type().asStructType().fields().isEmpty()) {
          Types.NestedField child = f.type().asStructType().fields().get(0);
          if (child.type().isPrimitiveType()) {
            options.add(() -> {
              current.updateSchema().deleteColumn(f.name() + "." + child.name()).commit();
              current
                  .updateSchema()
                  .addColumn(f.name(), child.name(), child.type())
                  .commit();
            });
          }
        }
      }
      String added = name();
      Type addedType = type(1);
      options.add(() -> current.updateSchema().addColumn(null, added, addedType).commit());
      if (formatVersion >= 3) {
        Object[][] defaults = {
          {Types.IntegerType.get(), Literal.of(42)},
          {Types.LongType.get(), Literal.of(-7L)},
          {Types.StringType.get(), Literal.of("dflt é")},
          {Types.BooleanType.get(), Literal.of(true)},
          {Types.DoubleType.get(), Literal.of(-0.0)},
          {Types.DateType.get(), Literal.of(20_000).to(Types.DateType.get())},
          {
            Types.TimestampType.withoutZone(),
            Literal.of("2026-11-30T06:30:00").to(Types.TimestampType.withoutZone())
          }
        };
        Object[] d = defaults[random.nextInt(defaults.length)];
        String withDefault = name();
        options.add(() -> current
            .updateSchema()
            .addColumn(null, withDefault, (Type) d[0], (Literal<?>) d[1])
            .commit());
      }
      return options.get(random.nextInt(options.size()));
    }

    private void deletes(List<Table> tables, int formatVersion) {
      List<DataFile> files = dataFilesInCommitOrder(tables.get(0));
      int kind = random.nextInt(3);
      Types.NestedField floating = tables.get(0).schema().columns().stream()
          .filter(f ->
              f.type().typeId() == Type.TypeID.DOUBLE || f.type().typeId() == Type.TypeID.FLOAT)
          .findFirst()
          .orElse(null);
      boolean onFloat = floating != null && random.nextBoolean();
      List<Long> deletedIds = new ArrayList<>();
      for (long id = 0; id < nextRowId; id += 1 + random.nextInt(5)) {
        deletedIds.add(id);
      }
      Object floatValue = floating == null
          ? null
          : floating.type().typeId() == Type.TypeID.DOUBLE
              ? pick(-0.0, 0.0, Double.NaN)
              : pick(-0.0f, 0.0f, Float.NaN);
      Map<Integer, List<Long>> positions = new HashMap<>();
      for (int i = 0; i < files.size(); i++) {
        if (random.nextBoolean() && files.get(i).recordCount() > 0) {
          positions.put(i, List.of((long) random.nextInt((int) files.get(i).recordCount())));
        }
      }
      for (Table t : tables) {
        List<DataFile> mine = dataFilesInCommitOrder(t);
        if (kind == 0 && onFloat) {
          // Iceberg's equality on floats: -0.0 and +0.0 differ, NaN equals NaN
          Schema valueOnly = t.schema().select(floating.name());
          Record r = GenericRecord.create(valueOnly);
          r.set(0, floatValue);
          t.newRowDelta()
              .addDeletes(TableWrites.writeEqualityDeletes(
                  t, t.spec(), mine.get(0).partition(), valueOnly, List.of(r)))
              .commit();
        } else if (kind == 0) {
          // equality deletes on the id column, and sometimes on a float or string column's value
          Schema idOnly = t.schema().select("id");
          List<Record> ids = new ArrayList<>();
          for (long id : deletedIds) {
            Record r = GenericRecord.create(idOnly);
            r.set(0, id);
            ids.add(r);
          }
          DeleteFile eq =
              TableWrites.writeEqualityDeletes(t, t.spec(), mine.get(0).partition(), idOnly, ids);
          t.newRowDelta().addDeletes(eq).commit();
        } else if (kind == 1 && formatVersion >= 3 && !positions.isEmpty()) {
          Map<DataFile, List<Long>> dvs = new HashMap<>();
          positions.forEach((i, pos) -> dvs.put(mine.get(i), pos));
          var delta = t.newRowDelta();
          TableWrites.writeDeletionVectors(t, dvs).forEach(delta::addDeletes);
          delta.commit();
        } else if (!positions.isEmpty() && formatVersion < 3) {
          var delta = t.newRowDelta();
          positions.forEach((i, pos) -> delta.addDeletes(TableWrites.writePositionDeletes(
              t,
              t.specs().get(mine.get(i).specId()),
              mine.get(i).partition(),
              pos.stream()
                  .map(p -> new TableWrites.Position(mine.get(i).location(), p))
                  .toList())));
          delta.commit();
        }
      }
    }

    /** Both tables get the same appends in the same order (files of one append in partition order): this lines their files up. */
    private static List<DataFile> dataFilesInCommitOrder(Table t) {
      List<DataFile> files = new ArrayList<>();
      for (org.apache.iceberg.Snapshot s : t.snapshots()) {
        s.addedDataFiles(t.io()).forEach(files::add);
      }
      return files;
    }
  }
}
