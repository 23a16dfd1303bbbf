package dev.resurfacer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Golden files under {@code src/test/resources/golden/}: the CLI's JSON output (field names, field order,
 * stable values), its help and its exit codes. Volatile values (temp paths, UUIDs, times, durations, ids,
 * sizes) are replaced by placeholders before comparing.
 *
 * <p>To regenerate after an intended change of the contract:
 * {@code mvn -B -o -q verify -pl resurfacer-cli -am -Dtest='Golden*Test' -Dsurefire.failIfNoSpecifiedTests=false -Dgolden.update=true},
 * then review {@code git diff resurfacer-cli/src/test/resources/golden}.
 */
final class Golden {
  private Golden() {}

  static final boolean UPDATE = Boolean.getBoolean("golden.update");
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final Pattern UUID = Pattern.compile(
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern ISO_TIME = Pattern.compile(
      "\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d+)?)?(Z|[+-]\\d{2}:?\\d{2})?");
  private static final Pattern RUN_ID = Pattern.compile("\\d{8}T\\d{6,9}Z");
  private static final Pattern LONG_NUMBER = Pattern.compile("(?<![\\w.])\\d{10,}(?![\\w])");
  private static final Pattern DECIMAL_SECONDS =
      Pattern.compile("\\d+(\\.\\d+)?\\s?(ms|s|µs|ns)\\b");
  private static final Pattern SIZE =
      Pattern.compile("\\d+(\\.\\d+)?\\s?(B|KB|KiB|MB|MiB|GB|GiB|bytes)\\b");
  /** Keys whose numeric value depends on the clock, the run or the compressor, not on the table's content. */
  private static final Pattern VOLATILE_KEY = Pattern.compile(
      "(?i).*(snapshot_id|snapshot|_ms|millis|seconds|nanos|duration|elapsed|timestamp|_time|time_|_at|bytes|size|age|cpu|heap|memory|version_ms|sequence).*");
  /** Keys whose numeric value is a count, a version or a setting: kept even though they match {@link #VOLATILE_KEY}. */
  private static final Set<String> STABLE_KEYS =
      Set.of("snapshots", "format_version", "version", "target_file_size_bytes_setting");

  /** Normalises {@code json} and compares it with (or, with {@code -Dgolden.update=true}, writes) {@code golden/<name>.json}. */
  static void assertJson(String name, String json, Path... tempDirs) {
    assertJson(name, json, Set.of(), tempDirs);
  }

  /**
   * As {@link #assertJson(String, String, Path...)}, with the members of the objects under the keys {@code unordered}
   * sorted by name first: the CLI builds those with {@code Map.of}, whose order changes from one JVM to the next.
   */
  static void assertJson(String name, String json, Set<String> unordered, Path... tempDirs) {
    JsonNode tree;
    try {
      tree = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new AssertionError(name + ": not JSON:\n" + json, e);
    }
    JsonNode normal = normalise(null, tree, unordered, tempDirs);
    String text;
    try {
      text = MAPPER.writeValueAsString(normal) + "\n";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertText(name + ".json", text);
  }

  /** Compares {@code text} (already normalised by the caller where needed) with {@code golden/<file>}. */
  static void assertText(String file, String text) {
    Path source = sourceDir().resolve(file);
    if (UPDATE) {
      try {
        Files.createDirectories(source.getParent());
        Files.writeString(source, text, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return;
    }
    String expected;
    try (var in = Golden.class.getResourceAsStream("/golden/" + file)) {
      assertThat(in)
          .as("golden/" + file
              + " is missing; regenerate with -Dgolden.update=true (see Golden's javadoc)")
          .isNotNull();
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!text.equals(expected)) {
      // beside the module's target/: diff it against the golden to see what changed
      try {
        Path actual = sourceDir()
            .getParent()
            .getParent()
            .getParent()
            .getParent()
            .resolve("target/golden-actual")
            .resolve(file);
        Files.createDirectories(actual.getParent());
        Files.writeString(actual, text, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    assertThat(text)
        .as(
            "golden/" + file
                + " differs; if the change is intended, regenerate with -Dgolden.update=true (see Golden's javadoc)")
        .isEqualTo(expected);
  }

  /** The module's own test resources (surefire runs in the module's directory). */
  private static Path sourceDir() {
    return Path.of(System.getProperty("basedir", ""))
        .toAbsolutePath()
        .resolve("src/test/resources/golden");
  }

  static String normaliseText(String s, Path... tempDirs) {
    String out = s;
    for (Path dir : tempDirs) {
      String real = dir.toAbsolutePath().toString();
      String uri = dir.toUri().toString();
      out = out.replace(uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri, "<tmp>");
      out = out.replace("file:" + real, "<tmp>");
      out = out.replace(real, "<tmp>");
      try {
        String canonical = dir.toRealPath().toString();
        out = out.replace(canonical, "<tmp>");
      } catch (IOException ignored) {
        // a removed directory has no real path; its absolute spelling was replaced above
      }
    }
    out = UUID.matcher(out).replaceAll("<uuid>");
    out = RUN_ID.matcher(out).replaceAll("<run-id>");
    out = ISO_TIME.matcher(out).replaceAll("<time>");
    out = LONG_NUMBER.matcher(out).replaceAll("<id>");
    out = DECIMAL_SECONDS.matcher(out).replaceAll("<duration>");
    out = SIZE.matcher(out).replaceAll("<size>");
    return out;
  }

  private static JsonNode normalise(
      String key, JsonNode node, Set<String> unordered, Path... tempDirs) {
    if (node.isObject()) {
      ObjectNode copy = MAPPER.createObjectNode();
      List<Map.Entry<String, JsonNode>> fields = new ArrayList<>();
      node.fields().forEachRemaining(fields::add);
      if (key != null && unordered.contains(key)) {
        fields.sort(Map.Entry.comparingByKey());
      }
      for (Map.Entry<String, JsonNode> e : fields) {
        copy.set(e.getKey(), normalise(e.getKey(), e.getValue(), unordered, tempDirs));
      }
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = MAPPER.createArrayNode();
      List<JsonNode> items = new ArrayList<>();
      node.forEach(n -> items.add(normalise(key, n, unordered, tempDirs)));
      copy.addAll(items);
      return copy;
    }
    if (node.isTextual()) {
      return TextNode.valueOf(normaliseText(node.asText(), tempDirs));
    }
    if (node.isNumber()
        && key != null
        && !STABLE_KEYS.contains(key)
        && VOLATILE_KEY.matcher(key).matches()) {
      return TextNode.valueOf(node.isIntegralNumber() ? "<long>" : "<number>");
    }
    if (node.isFloatingPointNumber()) {
      return TextNode.valueOf("<number>");
    }
    return node;
  }
}
