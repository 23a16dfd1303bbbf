package dev.resurfacer.storage;

import dev.resurfacer.UsageException;
import java.util.Locale;
import java.util.Set;

/**
 * Whether the storage SDK a location's scheme needs is on the class path. resurfacer-local.jar is built
 * without the Google Cloud Storage and Azure SDKs (and iceberg-gcp, iceberg-azure); there a {@code gs://}
 * or Azure location must end the run in one line before any code names an SDK class, not in a
 * NoClassDefFoundError halfway. Probed by name without initialising, so the full jar loads nothing either.
 */
public final class CloudSdks {
  private static final Set<String> AZURE = Set.of("abfs", "abfss", "wasb", "wasbs");
  private static final String GCS_CLASS = "com.google.cloud.storage.Storage";
  private static final String AZURE_CLASS = "com.azure.storage.blob.BlobServiceClient";

  private CloudSdks() {}

  /** Refuses {@code location} when its scheme's SDK is not in this build; any other location passes. */
  public static void require(String location) {
    int colon = location.indexOf(':');
    String scheme = colon < 0 ? "" : location.substring(0, colon).toLowerCase(Locale.ROOT);
    if (scheme.equals("gs") && !present(GCS_CLASS)) {
      throw missing(location, "Google Cloud Storage");
    }
    if (AZURE.contains(scheme) && !present(AZURE_CLASS)) {
      throw missing(location, "Azure storage");
    }
  }

  private static UsageException missing(String location, String storage) {
    return new UsageException(location + ": this build has no " + storage
        + " support (resurfacer-local.jar is local disk and S3 only): use resurfacer.jar");
  }

  static boolean present(String className) {
    try {
      Class.forName(className, false, CloudSdks.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }
}
