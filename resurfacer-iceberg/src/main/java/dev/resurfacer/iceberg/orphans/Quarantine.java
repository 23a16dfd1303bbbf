package dev.resurfacer.iceberg.orphans;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.storage.StoredFile;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * The first phase of a two-phase removal: candidates are moved under
 * {@code <table location>/.resurfacer-quarantine/<run-id>/} instead of deleted, with a manifest of
 * what came from where, written in full before the first file moves (so a run that dies half way
 * can still be restored). {@link #restore} puts a run back; {@link #purgeOlderThan} deletes runs
 * past their age. A rename on local disk; a copy then a delete on object stores. Orphan listing
 * never lists the quarantine directory.
 */
final class Quarantine {
  static final String DIRECTORY = ".resurfacer-quarantine";
  static final String MANIFEST = "manifest.jsonl";
  private static final Pattern RUN_ID = Pattern.compile("\\d{8}T\\d{9}Z");
  private static final DateTimeFormatter RUN_FORMAT =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmssSSS'Z'").withZone(ZoneOffset.UTC);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One moved file. */
  record Moved(String from, String to, long sizeBytes) {}

  private final FileIO io;
  private final String root;
  private final boolean local;

  /** @param tableRoot the table location's listing root: its real directory on local disk, else the location */
  Quarantine(FileIO io, String tableRoot, boolean local) {
    this.io = io;
    this.root = (tableRoot.endsWith("/") ? tableRoot : tableRoot + "/") + DIRECTORY;
    this.local = local;
  }

  String directory() {
    return root;
  }

  static String newRunId(long nowMillis) {
    return RUN_FORMAT.format(Instant.ofEpochMilli(nowMillis));
  }

  static String requireRunId(String runId) {
    if (runId == null || !RUN_ID.matcher(runId).matches()) {
      throw new UsageException("run id must look like 20261130T051500123Z (got '" + runId + "')");
    }
    return runId;
  }

  /**
   * Writes the manifest of {@code candidates} (streamed twice: once into the manifest, once to move),
   * then moves them; returns what moved.
   */
  long[] quarantine(
      String table, String runId, long nowMillis, Consumer<Consumer<Ledger.Listed>> candidates) {
    String runDir = root + "/" + runId;
    long[] index = new long[1];
    writeManifest(
        runDir,
        table,
        runId,
        nowMillis,
        w -> candidates.accept(f -> {
          String name = f.location().substring(f.location().lastIndexOf('/') + 1);
          Moved m = new Moved(
              f.location(), runDir + "/files/" + (index[0]++) + "-" + name, f.sizeBytes());
          line(w, Map.of("from", m.from(), "to", m.to(), "size", m.sizeBytes()));
        }));
    long[] done = new long[2];
    forEachMoved(runDir, m -> {
      move(m.from(), m.to());
      done[0]++;
      done[1] += m.sizeBytes();
    });
    return done;
  }

  /**
   * Puts run {@code runId} back. The manifest lies in the table's storage, where anyone who can write
   * there can edit it, so every line is checked before anything moves: {@code to} must be a file
   * directly in this run's {@code files/}, and {@code from} must satisfy {@code insideTable} (in the
   * table's scope, outside the quarantine). One bad line refuses the whole run.
   */
  RestoreReport restore(String table, String runId, boolean act, Predicate<String> insideTable) {
    String runDir = root + "/" + requireRunId(runId);
    if (!exists(runDir + "/" + MANIFEST)) {
      throw new UsageException(
          "no quarantine run " + runId + " for " + table + " (looked in " + runDir + ")");
    }
    String heldIn = runDir + "/files/";
    List<String> bad = new ArrayList<>();
    forEachMoved(runDir, m -> {
      String name = m.to().startsWith(heldIn) ? m.to().substring(heldIn.length()) : "";
      if (name.isEmpty() || name.contains("/") || name.equals(".") || name.equals("..")) {
        bad.add("'to' " + m.to() + " is not in " + heldIn);
      } else if (!insideTable.test(m.from())) {
        bad.add("'from' " + m.from() + " is not in the table's storage");
      }
    });
    if (!bad.isEmpty()) {
      throw new SafetyRefusal("restore-orphans: the manifest of run " + runId
          + " names files outside its quarantine or the" + " table ("
          + String.join("; ", bad.subList(0, Math.min(5, bad.size()))) + "); nothing was moved");
    }
    long[] counts = new long[3];
    List<String> conflicts = new ArrayList<>();
    forEachMoved(runDir, m -> {
      boolean held = exists(m.to());
      boolean back = exists(m.from());
      if (held && back) {
        conflicts.add(m.from());
      } else if (held) {
        if (act) {
          move(m.to(), m.from());
        }
        counts[0]++;
        counts[1] += m.sizeBytes();
      } else if (back) {
        counts[2]++;
      } else {
        conflicts.add(m.from() + " (missing from the quarantine)");
      }
    });
    if (act && conflicts.isEmpty()) {
      deleteTree(runDir);
    }
    return new RestoreReport(
        table, runId, act, counts[0], counts[1], counts[2], List.copyOf(conflicts));
  }

  /** Deletes every quarantine run created before {@code cutoffMillis}; returns files and bytes deleted. */
  long[] purgeOlderThan(long cutoffMillis) {
    long[] purged = new long[2];
    for (String runId : runIds()) {
      String runDir = root + "/" + runId;
      Long created = createdMillis(runDir);
      if (created != null && created < cutoffMillis) {
        long[] n = deleteTree(runDir);
        purged[0] += n[0];
        purged[1] += n[1];
      }
    }
    return purged;
  }

  private List<String> runIds() {
    List<String> out = new ArrayList<>();
    if (local) {
      Path dir = Path.of(root);
      if (!Files.isDirectory(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        return out;
      }
      try (var entries = Files.list(dir)) {
        entries
            .map(p -> p.getFileName().toString())
            .filter(n -> RUN_ID.matcher(n).matches())
            .sorted()
            .forEach(out::add);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return out;
    }
    java.util.Set<String> ids = new java.util.TreeSet<>();
    for (FileInfo f : lister().listPrefix(root + "/")) {
      String rest =
          f.location().substring(f.location().indexOf(DIRECTORY) + DIRECTORY.length() + 1);
      int slash = rest.indexOf('/');
      if (slash > 0 && RUN_ID.matcher(rest.substring(0, slash)).matches()) {
        ids.add(rest.substring(0, slash));
      }
    }
    out.addAll(ids);
    return out;
  }

  private Long createdMillis(String runDir) {
    try (InputStream in = io.newInputFile(runDir + "/" + MANIFEST).newStream();
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      String header = r.readLine();
      return header == null ? null : JSON.readTree(header).path("created_ms").asLong();
    } catch (IOException | RuntimeException e) {
      return null; // a run without a readable manifest is never purged: it may be one being written
    }
  }

  private void writeManifest(
      String runDir, String table, String runId, long nowMillis, Consumer<Writer> entries) {
    try (OutputStream out = io.newOutputFile(runDir + "/" + MANIFEST).create();
        Writer w = new java.io.OutputStreamWriter(out, StandardCharsets.UTF_8)) {
      Map<String, Object> header = new LinkedHashMap<>();
      header.put("run", runId);
      header.put("table", table);
      header.put("created_ms", nowMillis);
      line(w, header);
      entries.accept(w);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the quarantine manifest: " + e.getMessage(), e);
    }
  }

  private static void line(Writer w, Map<String, Object> value) {
    try {
      w.write(JSON.writeValueAsString(value));
      w.write('\n');
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void forEachMoved(String runDir, Consumer<Moved> action) {
    try (InputStream in = io.newInputFile(runDir + "/" + MANIFEST).newStream();
        BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      r.readLine();
      String line;
      while ((line = r.readLine()) != null) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode n = JSON.readTree(line);
        action.accept(new Moved(
            n.path("from").asText(), n.path("to").asText(), n.path("size").asLong()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the quarantine manifest of " + runDir + ": " + e.getMessage(), e);
    }
  }

  private void move(String from, String to) {
    if (local) {
      Path src = localPath(from);
      Path dst = localPath(to);
      try {
        if (Files.isSymbolicLink(src)) {
          throw new SafetyRefusal(
              "quarantine: " + from + " is a symbolic link; links are never moved");
        }
        Files.createDirectories(dst.getParent());
        Files.move(src, dst, StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot move " + from + " to " + to + ": " + e.getMessage(), e);
      }
      return;
    }
    try (InputStream in = io.newInputFile(from).newStream();
        OutputStream out = io.newOutputFile(to).createOrOverwrite()) {
      in.transferTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot copy " + from + " to " + to + ": " + e.getMessage(), e);
    }
    io.deleteFile(from);
  }

  private boolean exists(String location) {
    if (local) {
      return Files.exists(localPath(location), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }
    return io.newInputFile(location).exists();
  }

  private long[] deleteTree(String dir) {
    long[] n = new long[2];
    if (local) {
      Path p = Path.of(dir);
      if (!Files.isDirectory(p, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
        return n;
      }
      try {
        Files.walkFileTree(p, new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            n[0]++;
            n[1] += attrs.size();
            Files.delete(file); // a link is deleted itself, never what it points at
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
            Files.delete(d);
            return FileVisitResult.CONTINUE;
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return n;
    }
    List<String> files = new ArrayList<>();
    for (FileInfo f : lister().listPrefix(dir + "/")) {
      if (!f.location().endsWith("/")) {
        files.add(f.location());
        n[0]++;
        n[1] += f.size();
      }
    }
    files.forEach(io::deleteFile);
    return n;
  }

  private SupportsPrefixOperations lister() {
    if (io instanceof SupportsPrefixOperations p) {
      return p;
    }
    throw new SafetyRefusal(
        "quarantine: storage cannot be listed through " + io.getClass().getSimpleName());
  }

  private static Path localPath(String location) {
    StoredFile f = StoredFile.parse(location);
    if (!f.isLocal()) {
      throw new IllegalArgumentException("not a local location: " + location);
    }
    // the listing's own spelling (file:/real/path), without decoding: the name on disk
    String raw = location.startsWith("file:") ? location.substring(5) : location;
    while (raw.startsWith("//")) {
      raw = raw.substring(1);
    }
    return Path.of(raw);
  }
}
