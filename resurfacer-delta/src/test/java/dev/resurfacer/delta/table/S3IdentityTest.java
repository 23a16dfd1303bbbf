package dev.resurfacer.delta.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.config.CatalogConfig;
import dev.resurfacer.config.ResurfacerConfig;
import dev.resurfacer.storage.StoredFile;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** How S3 Delta tables name their files and settings, without a server: no client call is made. */
class S3IdentityTest {
  private static final S3Settings LOCAL = S3Settings.of(
      Map.of(
          "s3.endpoint",
          "http://127.0.0.1:9",
          "s3.path-style-access",
          "true",
          "s3.access-key-id",
          "k",
          "s3.secret-access-key",
          "s"),
      "test");

  /** The key prefix is {@code wh/t%41/}: a root decoded twice would be {@code wh/tA} and hold none of the live files. */
  @Test
  void aRelativeLogPathUnderARootWithALiteralEscapeStaysUnderIt() {
    try (ObjectStorage s = ObjectStorage.open("s3://lake/wh/t%2541", LOCAL)) {
      StoredFile live = s.resolve("part=a%2520b/x.parquet");
      assertThat(live).isEqualTo(new StoredFile("s3", "lake", "/wh/t%41/part=a%20b/x.parquet"));
      assertThat(s.root().contains(live)).isTrue();
      assertThat(s.fromKernelPath("s3://lake/wh/t%41/part=a%20b/x.parquet")).isEqualTo(live);
      for (String bad : List.of("../t2/x.parquet", "./x.parquet", "a//x.parquet")) {
        assertThatThrownBy(() -> s.resolve(bad)).as(bad).isInstanceOf(SafetyRefusal.class);
      }
    }
  }

  @Test
  void aLocationTheOnlyDeltaCatalogDoesNotNameGetsItsConnectionButNotItsSingleWriterPromise() {
    Map<String, String> props =
        Map.of("s3.endpoint", "http://127.0.0.1:9", "s3.single-writer", "true");
    ResurfacerConfig config = new ResurfacerConfig(
        Map.of(
            "deltas",
            new CatalogConfig(
                "deltas", "delta", null, null, props, Set.of(), Map.of("raw.a", "s3://lake/a"))),
        null);
    assertThat(DeltaTables.s3Settings(config, "s3://lake/a").singleWriter()).isTrue();
    S3Settings other = DeltaTables.s3Settings(config, "s3://lake/b");
    assertThat(other.singleWriter()).isFalse();
    assertThat(other.endpoint()).contains("http://127.0.0.1:9");
  }

  @Test
  void
      aDiscoverRootGivesItsTablesTheSingleWriterPromiseButNotPlacesItsWalkSkipsNorTablesAnotherCatalogNames() {
    Map<String, String> owner =
        Map.of("s3.endpoint", "http://127.0.0.1:9", "s3.single-writer", "true");
    Map<String, String> shared = Map.of("s3.endpoint", "http://127.0.0.1:9");
    Map<String, CatalogConfig> catalogs = new java.util.LinkedHashMap<>();
    catalogs.put(
        "owned",
        new CatalogConfig(
            "owned", "delta", null, null, owner, Set.of(), Map.of(), List.of("s3://lake/own")));
    catalogs.put(
        "spark",
        new CatalogConfig(
            "spark",
            "delta",
            null,
            null,
            shared,
            Set.of(),
            Map.of("raw.t", "s3a://lake/shared/t"),
            List.of()));
    ResurfacerConfig config = new ResurfacerConfig(catalogs, null);
    assertThat(DeltaTables.s3Settings(config, "s3a://lake/own/raw/t").singleWriter())
        .isTrue();
    assertThat(DeltaTables.s3Settings(config, "s3://lake/own/_staging/t").singleWriter())
        .as("a place the walk skips")
        .isFalse();
    assertThat(DeltaTables.s3Settings(config, "s3://lake/own/raw/.tmp/t").singleWriter())
        .isFalse();
    assertThat(DeltaTables.s3Settings(config, "s3://lake/shared/t").singleWriter())
        .as("named by a catalog without the promise")
        .isFalse();
  }

  @Test
  void anEndpointsUserInfoIsNeverShown() {
    S3Settings s = S3Settings.of(Map.of("s3.endpoint", "http://bob:hunter2@127.0.0.1:9"), "test");
    assertThat(s.toString()).doesNotContain("hunter2").contains("****@127.0.0.1:9");
    assertThatThrownBy(
            () -> S3Settings.of(Map.of("s3.endpoint", "ftp-nohost://bob:hunter2@"), "test"))
        .isInstanceOf(UsageException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
  }
}
