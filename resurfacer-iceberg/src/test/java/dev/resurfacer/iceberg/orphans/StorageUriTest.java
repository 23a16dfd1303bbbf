package dev.resurfacer.iceberg.orphans;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.SafetyRefusal;
import org.junit.jupiter.api.Test;

class StorageUriTest {
  @Test
  void equivalentSpellingsShareOneKey() {
    String key = StorageUri.parse("/w/db/t/data/a.parquet").key();
    assertThat(StorageUri.parse("file:/w/db/t/data/a.parquet").key()).isEqualTo(key);
    assertThat(StorageUri.parse("file:///w/db/t/data/a.parquet").key()).isEqualTo(key);
    assertThat(StorageUri.parse("file://localhost/w/db/t/data/a.parquet").key()).isEqualTo(key);
    assertThat(StorageUri.parse("file:/w//db/t/data/a.parquet").key()).isEqualTo(key);

    String s3 = StorageUri.parse("s3://bucket/w/t/").key();
    assertThat(s3).isEqualTo("s3://bucket/w/t");
    assertThat(StorageUri.parse("s3a://bucket/w/t").key()).isEqualTo(s3);
    assertThat(StorageUri.parse("S3N://bucket/w/t///").key()).isEqualTo(s3);
  }

  @Test
  void authorityAndSchemeStillDistinguish() {
    assertThat(StorageUri.parse("s3://other/w/t").key()).isNotEqualTo(StorageUri.parse("s3://bucket/w/t").key());
    assertThat(StorageUri.parse("gs://bucket/w/t").key()).isNotEqualTo(StorageUri.parse("s3://bucket/w/t").key());
    assertThat(StorageUri.parse("hdfs://nn:8020/w").prefix()).isEqualTo("hdfs://nn:8020");
    assertThat(StorageUri.parse("file://otherhost/w").key()).isNotEqualTo(StorageUri.parse("/w").key());
  }

  @Test
  void containmentIsByWholePathSegments() {
    StorageUri t = StorageUri.parse("s3://b/w/t");
    assertThat(t.contains(StorageUri.parse("s3a://b/w/t/data/x"))).isTrue();
    assertThat(t.contains(StorageUri.parse("s3://b/w/t"))).isTrue();
    assertThat(t.contains(StorageUri.parse("s3://b/w/t2/data/x"))).isFalse();
    assertThat(t.contains(StorageUri.parse("s3://c/w/t/data/x"))).isFalse();
  }

  @Test
  void percentEscapesAreKeptLiterally() {
    assertThat(StorageUri.parse("/w/t/data/ts=2024-01-01T00%3A00/x.parquet").path())
        .isEqualTo("/w/t/data/ts=2024-01-01T00%3A00/x.parquet");
    assertThat(StorageUri.parse("/w/t/data/name=a b/x.parquet").path()).isEqualTo("/w/t/data/name=a b/x.parquet");
  }

  @Test
  void relativeLocationsAreRefused() {
    assertThatThrownBy(() -> StorageUri.parse("warehouse/db/t")).isInstanceOf(SafetyRefusal.class);
  }
}
