package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.units.Durations;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Deletes files in a table's storage that no metadata references. {@link #plan()} previews and
 * {@link #execute()} deletes; both run the same steps, in this order:
 *
 * <ol>
 *   <li>refuse if another table's location overlaps this table's scope;
 *   <li>note the metadata as it is now, then list the scope (location, write.data.path,
 *       write.metadata.path) — listing first means a file committed during the run is in the
 *       metadata read next, so it is referenced, not orphaned;
 *   <li>reload the metadata and collect every referenced file of both versions;
 *   <li>refuse on a prefix mismatch, a partial listing, or an empty reference category;
 *   <li>orphans = listed, unreferenced, older than the age guard; delete them only in execute.
 * </ol>
 */
public final class OrphanRemoval {
  public static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(3);
  static final int DELETE_BATCH = 1000;

  private final Catalog catalog;
  private final TableIdentifier identifier;
  private final Table table;
  private Duration olderThan = DEFAULT_OLDER_THAN;
  private Clock clock = Clock.systemUTC();
  private FileIO io;
  private int show = 100;
  private String memoryLimit = "512MB";

  private OrphanRemoval(Catalog catalog, TableIdentifier identifier, Table table) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.identifier = Objects.requireNonNull(identifier, "identifier");
    this.table = Objects.requireNonNull(table, "table");
  }

  /** The catalog is needed to check that no other table shares this table's location. */
  public static OrphanRemoval of(Catalog catalog, TableIdentifier identifier, Table table) {
    return new OrphanRemoval(catalog, identifier, table);
  }

  /** The age guard: only files last modified longer ago than this are candidates. */
  public OrphanRemoval olderThan(Duration age) {
    if (age.isNegative()) {
      throw new IllegalArgumentException("older-than must not be negative");
    }
    this.olderThan = age;
    return this;
  }

  /** The clock the age guard measures against (tests and benchmarks). */
  public OrphanRemoval clock(Clock clock) {
    this.clock = clock;
    return this;
  }

  /** Use this FileIO instead of the table's, for listing, reading metadata and deleting. */
  public OrphanRemoval io(FileIO io) {
    this.io = io;
    return this;
  }

  /** How many orphans the report lists by name (all are counted). */
  public OrphanRemoval show(int n) {
    this.show = Math.max(0, n);
    return this;
  }

  /** DuckDB's memory limit for the comparison, e.g. {@code 256MB}; beyond it DuckDB spills to temp files. */
  public OrphanRemoval memoryLimit(String limit) {
    this.memoryLimit = limit;
    return this;
  }

  public OrphanReport plan() {
    return run(false);
  }

  public OrphanReport execute() {
    return run(true);
  }

  private OrphanReport run(boolean delete) {
    String name = identifier.toString();
    try {
      return runChecked(delete, name);
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("remove-orphans " + name + ": " + r.getMessage());
    }
  }

  private OrphanReport runChecked(boolean delete, String name) {
    if (!(table instanceof HasTableOperations hasOps)) {
      throw new SafetyRefusal("table " + name + " does not expose its metadata");
    }
    TableOperations ops = hasOps.operations();
    FileIO fileIO = io != null ? io : ops.io();
    if (!(fileIO instanceof SupportsPrefixOperations lister)) {
      throw new SafetyRefusal("storage cannot be listed through " + fileIO.getClass().getSimpleName());
    }
    TableMetadata before = ops.refresh();
    Scope scope = Scope.of(before);
    int neighbours = NeighbourTables.requireNoOverlap(catalog, identifier, scope);
    long now = clock.millis();
    long cutoff = now - olderThan.toMillis();
    List<String> warnings = new ArrayList<>();
    if (olderThan.compareTo(Duration.ofHours(1)) < 0) {
      warnings.add("age guard " + Durations.format(olderThan) + " is under 1h: files a running writer has not committed yet can be deleted");
    }

    try (Ledger ledger = new Ledger(memoryLimit)) {
      for (int i = 0; i < scope.roots().size(); i++) {
        list(lister, scope.rawRoots().get(i), scope.roots().get(i), cutoff, ledger, warnings);
      }
      TableMetadata after = ops.refresh();
      ReachableFiles walker = new ReachableFiles(fileIO);
      walker.walk(before, (category, location) -> reference(ledger, scope, category, location, true));
      if (after != before) {
        walker.walk(after, (category, location) -> reference(ledger, scope, category, location, false));
      }
      String hint = ReachableFileUtil.versionHintLocation(table);
      if (fileIO.newInputFile(hint).exists()) {
        reference(ledger, scope, Category.VERSION_HINT, hint, false);
      }
      ledger.seal();

      Fences.requireNoPrefixMismatch(ledger.prefixMismatches(5));
      List<String> missingSample = new ArrayList<>();
      Fences.requireCompleteListing(ledger.missingFromListing(missingSample, 5).files(), missingSample);
      Map<Category, Long> byCategory = ledger.referencedByCategory();
      Fences.requireEveryCategory(byCategory, !after.snapshots().isEmpty());

      Ledger.Totals listed = ledger.listedTotals();
      Ledger.Totals reachable = ledger.keptReachable();
      Ledger.Totals young = ledger.keptTooYoung();
      Ledger.Totals orphans = ledger.orphans();
      List<OrphanReport.OrphanFile> shown = new ArrayList<>();
      Deleter deleter = delete ? new Deleter(fileIO) : null;
      ledger.forEachOrphan(f -> {
        if (shown.size() < show) {
          shown.add(new OrphanReport.OrphanFile(f.location(), f.sizeBytes(), Math.max(0, now - f.createdAtMillis())));
        }
        if (deleter != null) {
          deleter.add(f);
        }
      });
      if (deleter != null) {
        deleter.flush();
      }
      Map<String, Long> referenced = new LinkedHashMap<>();
      byCategory.forEach((c, n) -> referenced.put(c.label, n));
      return new OrphanReport(name, delete, scope.keys(), Durations.format(olderThan), cutoff,
          listed.files(), listed.bytes(), reachable.files(), reachable.bytes(), young.files(), young.bytes(),
          orphans.files(), orphans.bytes(),
          deleter == null ? 0 : deleter.deleted, deleter == null ? 0 : deleter.deletedBytes,
          deleter == null ? 0 : deleter.failed,
          referenced, ledger.referencedInScope(), ledger.referencedOutsideScope(), neighbours,
          List.copyOf(shown), orphans.files() > shown.size(), List.copyOf(warnings));
    }
  }

  private static void list(SupportsPrefixOperations lister, String rawRoot, StorageUri root, long cutoff, Ledger ledger,
      List<String> warnings) {
    // the trailing slash keeps an object-store prefix listing of .../t from also returning .../t2/...
    String prefix = rawRoot.endsWith("/") ? rawRoot : rawRoot + "/";
    try {
      java.util.function.Consumer<FileInfo> sink = f -> addListed(f, root, cutoff, ledger);
      if (!LocalListing.listIfLocal(lister, prefix, root, sink)) {
        lister.listPrefix(prefix).forEach(sink);
      }
    } catch (UncheckedIOException e) {
      if (e.getCause() instanceof FileNotFoundException) {
        warnings.add(root + " does not exist; nothing listed there");
        return;
      }
      throw e;
    }
  }

  private static void addListed(FileInfo f, StorageUri root, long cutoff, Ledger ledger) {
    if (f.location().endsWith("/")) {
      return; // a directory placeholder object, not a file
    }
    StorageUri uri;
    try {
      uri = StorageUri.parse(f.location());
    } catch (SafetyRefusal r) {
      throw Fences.listedOutsideRoot(f.location(), root);
    }
    if (!root.contains(uri)) {
      throw Fences.listedOutsideRoot(f.location(), root);
    }
    // an unknown modification time is treated as new: a file that cannot be dated is never old enough
    boolean young = f.createdAtMillis() <= 0 || f.createdAtMillis() > cutoff;
    ledger.addListed(uri, f.location(), f.size(), f.createdAtMillis(), young);
  }

  private static void reference(Ledger ledger, Scope scope, Category category, String location, boolean mustBeListed) {
    StorageUri uri;
    try {
      uri = StorageUri.parse(location);
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("prefix mismatch: referenced " + category.label + " '" + location
          + "' cannot be compared with storage (" + r.getMessage() + "); nothing was deleted");
    }
    boolean inScope = scope.inScope(uri);
    ledger.addReachable(uri, category, inScope, mustBeListed && inScope);
  }

  /** Deletes in batches through the FileIO's bulk API when it has one, else one file at a time. */
  private static final class Deleter {
    private final FileIO io;
    private final List<Ledger.Listed> batch = new ArrayList<>();
    long deleted;
    long deletedBytes;
    long failed;

    Deleter(FileIO io) {
      this.io = io;
    }

    void add(Ledger.Listed f) {
      batch.add(f);
      if (batch.size() >= DELETE_BATCH) {
        flush();
      }
    }

    void flush() {
      if (batch.isEmpty()) {
        return;
      }
      if (io instanceof SupportsBulkOperations bulk) {
        try {
          bulk.deleteFiles(batch.stream().map(Ledger.Listed::location).toList());
          batch.forEach(this::counted);
        } catch (BulkDeletionFailureException e) {
          // which ones failed is not reported, so ask storage
          for (Ledger.Listed f : batch) {
            if (exists(f.location())) {
              failed++;
            } else {
              counted(f);
            }
          }
        }
      } else {
        for (Ledger.Listed f : batch) {
          try {
            io.deleteFile(f.location());
            counted(f);
          } catch (RuntimeException e) {
            failed++;
          }
        }
      }
      batch.clear();
    }

    private void counted(Ledger.Listed f) {
      deleted++;
      deletedBytes += f.sizeBytes();
    }

    private boolean exists(String location) {
      try {
        return io.newInputFile(location).exists();
      } catch (RuntimeException e) {
        return true;
      }
    }
  }
}
