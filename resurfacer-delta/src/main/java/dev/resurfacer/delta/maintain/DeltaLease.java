package dev.resurfacer.delta.maintain;

import dev.resurfacer.delta.table.TableStorage;
import dev.resurfacer.maintain.LeaseHeld;
import dev.resurfacer.storage.StoredFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A maintenance lease of one Delta table, kept in files {@code _resurfacer/lease-<generation>} under
 * the table's root ({@code OWNER until INSTANT}). Not a table property as for Iceberg: a metadata
 * commit would conflict with every concurrent Delta writer's transaction. Not under {@code _delta_log}
 * either: nothing but the log belongs there. Delta (and our vacuum) never enter {@code _}-directories.
 *
 * <p>The lease with the highest generation holds. A run takes it by creating the next generation
 * only if absent ({@link TableStorage#createIfAbsent}: a hard link to a fully written file on local
 * disk, a conditional PUT on S3), so of two runs racing for one generation exactly one wins, and a
 * reader never sees a half-written lease. A winner that then finds a higher, unexpired generation (a
 * run that started from an older listing) backs off. An expired lease is superseded by the next
 * generation, so a crashed run blocks a table for at most the lease duration.
 */
final class DeltaLease implements AutoCloseable {
  static final String DIRECTORY = "_resurfacer";
  private static final String PREFIX = "lease-";
  private static final int ATTEMPTS = 10;

  private final TableStorage storage;
  private final StoredFile file;
  private final String value;

  private DeltaLease(TableStorage storage, StoredFile file, String value) {
    this.storage = storage;
    this.file = file;
    this.value = value;
  }

  static DeltaLease acquire(TableStorage storage, String owner, Duration ttl, Clock clock) {
    StoredFile dir = storage.child(storage.root(), DIRECTORY);
    String value = owner + " until " + clock.instant().plus(ttl);
    try {
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        List<Held> all = list(storage, dir);
        Optional<Held> top =
            all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
        if (top.isPresent() && !top.get().expired(clock.instant())) {
          throw new LeaseHeld(
              "another maintain run holds the lease on this table (" + top.get().value() + ")");
        }
        long generation = top.map(h -> h.generation() + 1).orElse(1L);
        StoredFile mine = storage.child(dir, name(generation));
        try {
          storage.createIfAbsent(mine, value.getBytes(StandardCharsets.UTF_8));
        } catch (FileAlreadyExistsException e) {
          continue; // another run took this generation: look again
        }
        Optional<Held> newer = list(storage, dir).stream()
            .filter(h -> h.generation() > generation && !h.expired(clock.instant()))
            .findFirst();
        if (newer.isPresent()) {
          storage.delete(mine);
          throw new LeaseHeld("another maintain run holds the lease on this table ("
              + newer.get().value() + ")");
        }
        for (Held h : all) {
          deleteIfExists(storage, h.file()); // superseded generations, all expired
        }
        return new DeltaLease(storage, mine, value);
      }
      throw new IllegalStateException(
          "could not take the lease after " + ATTEMPTS + " attempts: other runs keep taking it");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot take the lease under " + dir + ": " + e.getMessage(), e);
    }
  }

  private static void deleteIfExists(TableStorage storage, StoredFile f) throws IOException {
    try {
      storage.delete(f);
    } catch (java.nio.file.NoSuchFileException gone) {
      // released meanwhile
    }
  }

  /** Releases the lease if this run still holds it (a run that outlived its lease may have been superseded). */
  @Override
  public void close() throws IOException {
    if (storage.read(file).map(value::equals).orElse(false)) {
      deleteIfExists(storage, file);
    }
  }

  StoredFile file() {
    return file;
  }

  private static String name(long generation) {
    return String.format("%s%020d", PREFIX, generation);
  }

  record Held(StoredFile file, long generation, String value) {
    /** Unreadable or unparseable content counts as held: a lease is never taken over on a guess. */
    boolean expired(Instant now) {
      int at = value.lastIndexOf(" until ");
      if (at < 0) {
        return false;
      }
      try {
        return Instant.parse(value.substring(at + " until ".length()).trim()).isBefore(now);
      } catch (DateTimeParseException e) {
        return false;
      }
    }
  }

  private static List<Held> list(TableStorage storage, StoredFile dir) throws IOException {
    List<Held> out = new ArrayList<>();
    for (TableStorage.Entry e : storage.listDirectory(dir)) {
      String n = TableStorage.name(e.file());
      if (!n.matches(PREFIX + "\\d{20}")) {
        continue;
      }
      Optional<String> v = storage.read(e.file());
      if (v.isEmpty()) {
        continue; // released meanwhile
      }
      out.add(new Held(e.file(), Long.parseLong(n.substring(PREFIX.length())), v.get()));
    }
    out.sort(Comparator.comparingLong(Held::generation));
    return out;
  }
}
