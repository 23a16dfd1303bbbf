package dev.resurfacer.iceberg.orphans;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.progress.Progress;
import dev.resurfacer.storage.StorageFences;
import dev.resurfacer.storage.StoredFile;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.function.Consumer;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

/**
 * Deletes (or quarantines) files in a table's storage that no metadata references. {@link #plan()}
 * previews and {@link #execute()} acts; both find the candidates by the same steps ({@link CandidateSearch},
 * checked by {@link Fences}), and only {@code execute} hands them to the {@link Sweeper}. In order:
 *
 * <ol>
 *   <li>resolve the scope (location, write.data.path, write.metadata.path) to canonical roots — real
 *       directories on local disk — and refuse if any other table of the census overlaps it or
 *       references a file inside it (see {@link dev.resurfacer.storage.Neighbours});
 *   <li>note the metadata as it is now, then list the scope — listing first means a file committed
 *       during the run is in the metadata read next, so it is referenced, not orphaned. Local storage
 *       is walked with java.nio whatever the FileIO (no process forked, no link followed); the
 *       catalog's own files, the configuration file and the quarantine are never listed;
 *   <li>reload the metadata and collect every referenced file of both versions, each by its
 *       canonical identity ({@link StoredFile});
 *   <li>refuse on a prefix mismatch, a partial listing, or an empty reference category;
 *   <li>orphans = listed, unreferenced, older than the age guard;
 *   <li>just before acting, read the metadata once more and refuse if it now references a candidate;
 *       then delete them, or move them to the quarantine.
 * </ol>
 */
public final class OrphanRemoval {
  public static final Duration DEFAULT_OLDER_THAN = Duration.ofDays(3);
  public static final Duration DEFAULT_QUARANTINE_RETENTION = Duration.ofDays(7);

  // the settings, read by the steps of the run (CandidateSearch, Sweeper)
  final Catalog catalog;
  final TableIdentifier identifier;
  final Table table;
  Duration olderThan = DEFAULT_OLDER_THAN;
  Seam seam = Seam.NONE;
  int show = 100;
  String memoryLimit = "512MB";
  StorageFences fences;
  Set<String> candidateLocations;
  boolean quarantine;
  Duration quarantineRetention = DEFAULT_QUARANTINE_RETENTION;
  Consumer<String> warningListener = w -> {};
  Progress progress = Progress.NONE;
  Inventory inventory;

  private OrphanRemoval(Catalog catalog, TableIdentifier identifier, Table table) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.identifier = Objects.requireNonNull(identifier, "identifier");
    this.table = Objects.requireNonNull(table, "table");
  }

  /** The catalog is needed to check that no other table shares this table's storage. */
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

  /**
   * What tests replace: the FileIO (to inject faults, e.g. a commit racing the deletes) and the clock the
   * age guard measures against. Package-private, the one seam: no production caller sets either.
   *
   * @param io null for the table's own (listed with java.nio on local disk); any other is listed through its own API
   */
  record Seam(FileIO io, Clock clock) {
    static final Seam NONE = new Seam(null, Clock.systemUTC());
  }

  OrphanRemoval seam(Seam seam) {
    this.seam = Objects.requireNonNull(seam, "seam");
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

  /**
   * The tables of either format to check this one's scope against, and the files never listed nor
   * deleted (a SQLite catalog and its side files, a configuration file). Without it, only the tables
   * of {@link #of}'s catalog are read; pass fences over every catalog you use (several catalog names
   * in one JDBC database, several catalogs, Delta catalogs) so a table registered elsewhere is seen too.
   */
  public OrphanRemoval fences(StorageFences fences) {
    this.fences = Objects.requireNonNull(fences, "fences");
    return this;
  }

  /**
   * Only these files may be removed: another engine's candidates (e.g. Spark's dry-run list). Every
   * fence still applies; a listed file not among them is kept like a file too young to remove (and
   * counted so), a candidate that is referenced, out of scope or behind a link is never listed as an
   * orphan, so {@code census().orphans()} counts the candidates our fences agree on.
   */
  public OrphanRemoval onlyAmong(Collection<String> candidates) {
    this.candidateLocations = Set.copyOf(candidates);
    return this;
  }

  /** Move the candidates to {@code <location>/.resurfacer-quarantine/<run-id>/} instead of deleting them. */
  public OrphanRemoval quarantine(boolean enabled) {
    this.quarantine = enabled;
    return this;
  }

  /** Quarantine runs older than this are deleted by the next {@link #execute()}. */
  public OrphanRemoval quarantineRetention(Duration age) {
    if (age.isNegative()) {
      throw new IllegalArgumentException("quarantine retention must not be negative");
    }
    this.quarantineRetention = age;
    return this;
  }

  /** Called with each warning as soon as it is known — before anything is deleted. */
  public OrphanRemoval onWarning(Consumer<String> listener) {
    this.warningListener = Objects.requireNonNull(listener);
    return this;
  }

  /** Told of the listing as it goes (files and bytes listed) and of the deletes or quarantine moves. */
  public OrphanRemoval progress(Progress progress) {
    this.progress = Objects.requireNonNull(progress);
    return this;
  }

  /**
   * Read the files in storage from this listing (an S3 Inventory report, a plain list) instead of
   * listing the scope. The fences adapt to its age: the age guard must exceed it, a listed file
   * newer than the listing is never a candidate, and a referenced file the listing lacks is a partial
   * listing unless storage dates it after the listing (one prefix listing of that file each).
   * Entries outside the scope are ignored, so one report can serve every table of a bucket.
   */
  public OrphanRemoval listing(Inventory listing) {
    this.inventory = Objects.requireNonNull(listing, "listing");
    return this;
  }

  /** What a run with {@link #execute()} would remove; changes nothing. */
  public OrphanReport plan() {
    return run(false);
  }

  /** Removes (or quarantines) what {@link #plan()} finds, found by the same steps just before acting. */
  public OrphanReport execute() {
    return run(true);
  }

  /** Puts the files of quarantine run {@code runId} back where they were; with {@code act} false, only says what it would do. */
  public static RestoreReport restore(Table table, String name, String runId, boolean act) {
    Quarantine.requireRunId(runId);
    StoredFile.Resolver resolver = new StoredFile.Resolver();
    Scope scope = Scope.of(((HasTableOperations) table).operations().refresh(), resolver);
    Scope.Root location = scope.roots().get(0);
    Quarantine holding =
        new Quarantine(table.io(), CandidateSearch.locationRoot(scope, table), location.isLocal());
    StoredFile quarantineDir = resolver.resolve(holding.directory());
    // a file goes back only to where remove-orphans could have taken it from: the scope, outside
    // the quarantine
    return holding.restore(name, runId, act, from -> {
      try {
        return resolver.resolveAll(from).stream()
            .allMatch(f -> scope.inScope(f) && !quarantineDir.contains(f));
      } catch (SafetyRefusal unreadable) {
        return false;
      }
    });
  }

  private OrphanReport run(boolean act) {
    String name = dev.resurfacer.iceberg.catalog.Catalogs.nameOf(identifier);
    try (OrphanPlan plan = CandidateSearch.find(this, act, name)) {
      return act
          ? plan.acted(Sweeper.sweep(plan, quarantine, quarantineRetention, progress))
          : plan.found();
    } catch (SafetyRefusal r) {
      throw new SafetyRefusal("remove-orphans " + name + ": " + r.getMessage());
    }
  }
}
