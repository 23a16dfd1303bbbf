package dev.resurfacer.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Creates {@code count} empty files that no metadata references under {@code dir} (1,000 per
 * sub-directory, named like data files), dated {@code age-days} ago so they pass the 3-day age
 * guard of both engines. Cheap stand-ins for a million orphans: listing, the anti-join and the
 * deletes cost the same per file whatever the size.
 *
 * <pre>MakeOrphans --dir DIR [--count 1000000] [--per-dir 1000] [--age-days 10] [--threads 2]</pre>
 */
public final class MakeOrphans {
  private MakeOrphans() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> a = Args.parse(args);
    Path dir = Path.of(a.get("dir")).toAbsolutePath().normalize();
    int count = Integer.parseInt(a.getOrDefault("count", "1000000"));
    int perDir = Integer.parseInt(a.getOrDefault("per-dir", "1000"));
    FileTime old = FileTime.from(
        Instant.now().minus(Duration.ofDays(Long.parseLong(a.getOrDefault("age-days", "10")))));
    int threads = Integer.parseInt(a.getOrDefault("threads", "2"));
    long t0 = System.nanoTime();
    int dirs = (count + perDir - 1) / perDir;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<Future<?>> done = new ArrayList<>();
    for (int d = 0; d < dirs; d++) {
      final int dd = d;
      done.add(pool.submit(() -> {
        Path sub = dir.resolve(String.format(Locale.ROOT, "b%05d", dd));
        Files.createDirectories(sub);
        for (int i = dd * perDir; i < Math.min(count, (dd + 1) * perDir); i++) {
          Path f = Files.createFile(
              sub.resolve(String.format(Locale.ROOT, "%08d-orphan-00001.parquet", i)));
          Files.setLastModifiedTime(f, old);
        }
        Files.setLastModifiedTime(sub, old);
        return null;
      }));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    System.out.printf(
        Locale.ROOT,
        "made %,d orphan files in %d dirs under %s in %.1f s%n",
        count,
        dirs,
        dir,
        (System.nanoTime() - t0) / 1e9);
  }
}
