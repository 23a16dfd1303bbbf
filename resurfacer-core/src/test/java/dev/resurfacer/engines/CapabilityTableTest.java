package dev.resurfacer.engines;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/features.md}'s engine table is generated from {@link EngineDeclarations}. When this fails after a
 * declaration changed, regenerate the table with
 * {@code mvn -B -o -q verify -pl resurfacer-core -Dtest=CapabilityTableTest -Dcapabilities.update=true}
 * and commit docs/features.md.
 */
class CapabilityTableTest {
  static final String BEGIN =
      "<!-- engine-capabilities:begin: generated from EngineDeclarations by CapabilityTableTest"
          + " (-Dcapabilities.update=true); do not edit by hand -->\n";
  static final String END = "<!-- engine-capabilities:end -->";

  private static Path features() {
    return Path.of(System.getProperty("basedir", ""))
        .toAbsolutePath()
        .getParent()
        .resolve("docs/features.md");
  }

  @Test
  void featuresMdCarriesTheGeneratedTable() throws Exception {
    String generated = CapabilityTable.of(EngineDeclarations.all()).markdown();
    String doc = Files.readString(features());
    int begin = doc.indexOf(BEGIN);
    int end = doc.indexOf(END);
    assertThat(begin).as("docs/features.md has no " + BEGIN.strip() + " marker").isNotNegative();
    assertThat(end).as("docs/features.md has no " + END + " marker").isGreaterThan(begin);
    String current = doc.substring(begin + BEGIN.length(), end);
    if (Boolean.getBoolean("capabilities.update")) {
      Files.writeString(
          features(), doc.substring(0, begin + BEGIN.length()) + generated + doc.substring(end));
      return;
    }
    assertThat(current)
        .as(
            "docs/features.md's engine table is stale: regenerate it with"
                + " mvn -B -o -q verify -pl resurfacer-core -Dtest=CapabilityTableTest -Dcapabilities.update=true")
        .isEqualTo(generated);
  }

  @Test
  void theLocalEngineDeclaresEveryMaintainedIcebergAndDeltaOperation() {
    List<String> iceberg = EngineDeclarations.of(LocalEngine.NAME).stream()
        .filter(c -> c.format().equals("iceberg"))
        .map(EngineCapability::operation)
        .toList();
    assertThat(iceberg)
        .contains(
            "compact",
            "condense",
            "remove-dangling-deletes",
            "rewrite-position-deletes",
            "convert-equality-deletes",
            "compute-stats",
            "compute-partition-stats",
            "rewrite-manifests",
            "expire",
            "remove-orphans",
            "apply-retention");
    assertThat(new LocalEngine().capabilities())
        .isEqualTo(EngineDeclarations.of(LocalEngine.NAME))
        .allMatch(EngineCapability::works);
  }

  @Test
  void cellsShowRefusedAndUndeclaredAndRefusedSettings() {
    CapabilityTable t = CapabilityTable.of(List.of(
        EngineCapability.works("a", "iceberg", "compact", "n").refusing("sort-by", "why"),
        EngineCapability.refused("b", "iceberg", "compact", "why"),
        EngineCapability.works("a", "delta", "vacuum", "n")));
    assertThat(t.markdown()).isEqualTo("""
        | Format | Operation | a | b |
        |---|---|---|---|
        | iceberg | `compact` | works (not: sort-by) | refused |
        | delta | `vacuum` | works | - |
        """);
  }
}
