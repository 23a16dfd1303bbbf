package dev.resurfacer.iceberg.storage;

import dev.resurfacer.SafetyRefusal;
import dev.resurfacer.UsageException;
import dev.resurfacer.storage.CloudSdks;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.ResolvingFileIO;
import org.apache.iceberg.util.Tasks;
import org.apache.iceberg.util.ThreadPools;

/**
 * The FileIO our catalogs open unless the user names one: Iceberg's {@link ResolvingFileIO}
 * (S3FileIO for {@code s3://}, ADLSFileIO for the Azure schemes, GCSFileIO for {@code gs://},
 * HadoopFileIO for the rest), except that an Azure prefix is listed through
 * the Blob service ({@link AzureBlobListing}). ADLSFileIO lists with the Data Lake {@code dfs}
 * endpoint's path listing, which a storage account without a hierarchical namespace, and Azurite,
 * do not serve; the Blob listing is served by every account, and it reports the directories of a
 * hierarchical namespace as marked blobs, which it skips. On {@code gs://} a bulk delete is one
 * object delete per file (a bounded number at a time) instead of GCSFileIO's batch request: the GCS
 * emulator our tests run answers the batch endpoint with 501, and a delete we cannot test against a
 * server is not one we ship; a listed object name with an empty or dot segment refuses the run, as on
 * Azure. {@code gcs://}, which Iceberg does not map to GCSFileIO and Hadoop has no
 * file system for, is refused in one line, and so is a {@code gs://} or Azure location in a build without
 * that SDK ({@link CloudSdks}).
 */
public class StorageFileIO extends ResolvingFileIO {
  private static final Set<String> AZURE = Set.of("abfs", "abfss", "wasb", "wasbs");

  private transient volatile AzureBlobListing azure;

  @Override
  public InputFile newInputFile(String location) {
    return ending(super.newInputFile(supported(location)));
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return ending(super.newInputFile(supported(location), length));
  }

  private static InputFile ending(InputFile file) {
    return scheme(file.location()).equals("gs") ? new GcsInputFile(file) : file;
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return super.newOutputFile(supported(location));
  }

  @Override
  public void deleteFile(String location) {
    super.deleteFile(supported(location));
  }

  @Override
  public void deleteFiles(Iterable<String> locations) throws BulkDeletionFailureException {
    locations.forEach(StorageFileIO::supported);
    List<String> gcs = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    locations.forEach(l -> (scheme(l).equals("gs") ? gcs : rest).add(l));
    if (!rest.isEmpty()) {
      super.deleteFiles(rest);
    }
    if (!gcs.isEmpty()) {
      AtomicInteger failed = new AtomicInteger();
      Tasks.foreach(gcs)
          .executeWith(ThreadPools.getWorkerPool())
          .noRetry()
          .suppressFailureWhenFinished()
          .onFailure((location, e) -> failed.incrementAndGet())
          .run(super::deleteFile);
      if (failed.get() > 0) {
        throw new BulkDeletionFailureException(failed.get());
      }
    }
  }

  @Override
  public void deletePrefix(String prefix) {
    super.deletePrefix(supported(prefix));
  }

  static String supported(String location) {
    String scheme = scheme(location);
    if (scheme.equals("gcs")) {
      throw new UsageException(
          location
              + ": gcs:// is not a Google Cloud Storage scheme Iceberg reads; write gs:// (see docs/catalogs.md)");
    }
    try {
      CloudSdks.require(location);
    } catch (UsageException e) {
      // a catalog retries a failed read of table metadata for about 90 s, but not a
      // NotFoundException
      throw location.contains(".metadata.json") ? new MissingSdk(e.getMessage()) : e;
    }
    return location;
  }

  /** The table's metadata is in storage whose SDK this build lacks; {@code Catalogs.loadTable} makes it a usage error. */
  public static final class MissingSdk extends NotFoundException {
    MissingSdk(String message) {
      super("%s", message);
    }
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    supported(prefix);
    if (AZURE.contains(scheme(prefix))) {
      return azure().list(prefix);
    }
    if (scheme(prefix).equals("gs")) {
      return CloseableIterable.transform(
          CloseableIterable.withNoopClose(super.listPrefix(prefix)), f -> {
            int bucketEnd = f.location().indexOf('/', "gs://".length());
            StorageFileIO.requireUnambiguous(
                f.location().substring(0, bucketEnd), f.location().substring(bucketEnd + 1));
            return f;
          });
    }
    return super.listPrefix(prefix);
  }

  /**
   * An object name with an empty or dot segment ({@code a//b}, {@code a/./b}) is another object than the
   * one a parser makes of it, so its identity cannot be compared with the references; a trailing
   * slash is a directory placeholder, which the caller skips.
   */
  static void requireUnambiguous(String root, String name) {
    String body = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
    for (String seg : body.split("/", -1)) {
      if (seg.isEmpty() || seg.equals(".") || seg.equals("..")) {
        throw new SafetyRefusal(root + "/" + name
            + " has an empty or dot segment; its identity is ambiguous, nothing is deleted");
      }
    }
  }

  @Override
  public void close() {
    AzureBlobListing a = azure;
    if (a != null) {
      a.close();
    }
    super.close();
  }

  private AzureBlobListing azure() {
    AzureBlobListing a = azure;
    if (a == null) {
      synchronized (this) {
        if (azure == null) {
          azure = AzureBlobListing.open(properties());
        }
        a = azure;
      }
    }
    return a;
  }

  static String scheme(String location) {
    int colon = location.indexOf(':');
    return colon < 0 ? "" : location.substring(0, colon).toLowerCase(Locale.ROOT);
  }
}
