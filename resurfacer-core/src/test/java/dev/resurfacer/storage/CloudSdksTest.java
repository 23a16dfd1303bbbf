package dev.resurfacer.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import org.junit.jupiter.api.Test;

/** resurfacer-core's class path has neither cloud SDK, as resurfacer-local.jar. */
class CloudSdksTest {
  @Test
  void localAndS3LocationsPass() {
    for (String location :
        new String[] {"/tmp/t", "file:/tmp/t", "s3://b/t", "s3a://b/t", "relative/t", "hdfs://nn/t"
        }) {
      CloudSdks.require(location);
    }
  }

  @Test
  void cloudLocationsAreRefusedInOneLineWhenTheirSdkIsMissing() {
    assertThat(CloudSdks.present("com.google.cloud.storage.Storage")).isFalse();
    assertThatThrownBy(() -> CloudSdks.require("GS://b/t/metadata/v1.metadata.json"))
        .isInstanceOf(UsageException.class)
        .hasMessage(
            "GS://b/t/metadata/v1.metadata.json: this build has no Google Cloud Storage support"
                + " (resurfacer-local.jar is local disk and S3 only): use resurfacer.jar");
    for (String scheme : new String[] {"abfs", "abfss", "wasb", "wasbs"}) {
      assertThatThrownBy(() -> CloudSdks.require(scheme + "://c@a.dfs.core.windows.net/t"))
          .isInstanceOf(UsageException.class)
          .hasMessageContaining("no Azure storage support")
          .hasMessageNotContaining("\n");
    }
  }

  @Test
  void aClassOnTheClassPathIsPresent() {
    assertThat(CloudSdks.present("dev.resurfacer.UsageException")).isTrue();
  }
}
