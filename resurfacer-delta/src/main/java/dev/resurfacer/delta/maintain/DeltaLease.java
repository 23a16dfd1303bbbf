package dev.resurfacer.delta.maintain;

import dev.resurfacer.maintain.LeaseHeld;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A maintenance lease of one Delta table, kept in files {@code _resurfacer/lease-<generation>} under
 * the table's root ({@code OWNER until INSTANT}). Not a table property as for Iceberg: a metadata
 * commit would conflict with every concurrent Delta writer's transaction. Not under {@code _delta_log}
 * either: nothing but the log belongs there. Delta (and our vacuum) never enter {@code _}-directories.
 *
 * <p>The lease with the highest generation holds. A run takes it by creating the next generation as
 * a hard link to a fully written temporary file: {@code link(2)} fails when the name exists, so of two
 * runs racing for one generation exactly one wins, and a reader never sees a half-written lease. A
 * winner that then finds a higher, unexpired generation (a run that started from an older listing)
 * backs off. An expired lease is superseded by the next generation, so a crashed run blocks a table
 * for at most the lease duration. Local storage only, like the rest of Delta support on this build.
 */
final class DeltaLease implements AutoCloseable {
  static final String DIRECTORY = "_resurfacer";
  private static final String PREFIX = "lease-";
  private static final int ATTEMPTS = 10;

  private final Path file;
  private final String value;

  private DeltaLease(Path file, String value) {
    this.file = file;
    this.value = value;
  }

  static DeltaLease acquire(Path tableRoot, String owner, Duration ttl, Clock clock) {
    Path dir = tableRoot.resolve(DIRECTORY);
    String value = owner + " until " + clock.instant().plus(ttl);
    try {
      Files.createDirectories(dir);
      for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
        List<Held> all = list(dir);
        Optional<Held> top = all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
        if (top.isPresent() && !top.get().expired(clock.instant())) {
          throw new LeaseHeld("another maintain run holds the lease on this table (" + top.get().value() + ")");
        }
        long generation = top.map(h -> h.generation() + 1).orElse(1L);
        Path mine = dir.resolve(name(generation));
        Path tmp = Files.createTempFile(dir, ".lease-", ".tmp");
        try {
          // on disk before it becomes visible: a crash must not leave an empty lease that reads as held forever
          try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE,
              java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(value.getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
          }
          Files.createLink(mine, tmp);
        } catch (FileAlreadyExistsException e) {
          continue; // another run took this generation: look again
        } finally {
          Files.deleteIfExists(tmp);
        }
        Optional<Held> newer = list(dir).stream().filter(h -> h.generation() > generation && !h.expired(clock.instant())).findFirst();
        if (newer.isPresent()) {
          Files.deleteIfExists(mine);
          throw new LeaseHeld("another maintain run holds the lease on this table (" + newer.get().value() + ")");
        }
        for (Held h : all) {
          Files.deleteIfExists(h.file()); // superseded generations, all expired
        }
        return new DeltaLease(mine, value);
      }
      throw new IllegalStateException("could not take the lease after " + ATTEMPTS + " attempts: other runs keep taking it");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take the lease under " + dir + ": " + e.getMessage(), e);
    }
  }

  /** Releases the lease if this run still holds it (a run that outlived its lease may have been superseded). */
  @Override
  public void close() throws IOException {
    try {
      if (Files.readString(file, StandardCharsets.UTF_8).equals(value)) {
        Files.delete(file);
      }
    } catch (NoSuchFileException ignored) {
      // superseded after it expired: nothing of ours is left
    }
  }

  Path file() {
    return file;
  }

  private static String name(long generation) {
    return String.format("%s%020d", PREFIX, generation);
  }

  record Held(Path file, long generation, String value) {
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

  private static List<Held> list(Path dir) throws IOException {
    List<Held> out = new ArrayList<>();
    try (Stream<Path> s = Files.list(dir)) {
      for (Path p : s.toList()) {
        String n = p.getFileName().toString();
        if (!n.matches(PREFIX + "\\d{20}")) {
          continue;
        }
        String v;
        try {
          v = Files.readString(p, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
          continue; // released meanwhile
        }
        out.add(new Held(p, Long.parseLong(n.substring(PREFIX.length())), v));
      }
    }
    out.sort(Comparator.comparingLong(Held::generation));
    return out;
  }
}
