package dev.resurfacer.trino;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which Trino servers may vacuum which tables: releases before 470 mishandle live paths that need URI escaping. */
class TrinoDeltaVacuumTest {
  static final List<String> PLAIN =
      List.of("cat=a/part-00000-1.snappy.parquet", "part-00001-2.snappy.parquet");
  static final List<String> ESCAPED = List.of(
      "cat=a b/part-00000-1.snappy.parquet",
      "ts=2024-12-13 00%3A00%3A00/part-2.parquet",
      "cat=été/part-3.parquet",
      "part-00001-2.snappy.parquet");

  @Test
  void anOlderTrinoIsRefusedOneLineNamingThePathsOnlyWhenALivePathNeedsEscaping() {
    assertThat(TrinoDeltaVacuum.escapingRefusal("469", "dops.t", ESCAPED))
        .hasValueSatisfying(why -> assertThat(why)
            .startsWith(
                "Trino 469's vacuum deletes live files whose paths need URI escaping (trinodb/trino#24872, fixed in 470)"
                    + " and dops.t has 3, e.g. ")
            .contains("cat=a b/part-00000-1.snappy.parquet", "00%3A00%3A00", "cat=été/")
            .doesNotContain("part-00001-2")
            .endsWith("; upgrade Trino or use --engine local")
            .doesNotContain("\n"));
    assertThat(TrinoDeltaVacuum.escapingRefusal("458-e.12", "dops.t", ESCAPED)).isPresent();
    assertThat(TrinoDeltaVacuum.escapingRefusal("469", "dops.t", PLAIN)).isEmpty();
  }

  @Test
  void theFixedReleasesAndLaterRunAndAnUnreadableVersionCountsAsOld() {
    for (String version : List.of("470", "476", "480-e.1", "1000")) {
      assertThat(TrinoDeltaVacuum.escapingRefusal(version, "dops.t", ESCAPED))
          .as(version)
          .isEmpty();
    }
    for (String version : new String[] {null, "", "dev", "SNAPSHOT-476"}) {
      assertThat(TrinoDeltaVacuum.escapingRefusal(version, "dops.t", ESCAPED))
          .as(String.valueOf(version))
          .isPresent();
      assertThat(TrinoDeltaVacuum.escapingRefusal(version, "dops.t", PLAIN))
          .as(String.valueOf(version))
          .isEmpty();
    }
  }
}
