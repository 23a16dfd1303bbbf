package dev.resurfacer.iceberg.storage;

import dev.resurfacer.UsageException;
import java.util.Locale;
import java.util.Set;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.ResolvingFileIO;

/**
 * The FileIO our catalogs open unless the user names one: Iceberg's {@link ResolvingFileIO}
 * (S3FileIO for {@code s3://}, ADLSFileIO for the Azure schemes, GCSFileIO for {@code gs://} when
 * it is on the class path, HadoopFileIO for the rest), except that an Azure prefix is listed through
 * the Blob service ({@link AzureBlobListing}). ADLSFileIO lists with the Data Lake {@code dfs}
 * endpoint's path listing, which a storage account without a hierarchical namespace, and Azurite,
 * do not serve; the Blob listing is served by every account, and it reports the directories of a
 * hierarchical namespace as marked blobs, which it skips. Google Cloud Storage is refused in one
 * line: this build does not ship GCSFileIO (docs/catalogs.md), and without it ResolvingFileIO would
 * fall back to Hadoop, which has no {@code gs} file system either.
 */
public class StorageFileIO extends ResolvingFileIO {
  private static final Set<String> AZURE = Set.of("abfs", "abfss", "wasb", "wasbs");

  private transient volatile AzureBlobListing azure;

  @Override
  public InputFile newInputFile(String location) {
    return super.newInputFile(supported(location));
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return super.newInputFile(supported(location), length);
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
    super.deleteFiles(locations);
  }

  @Override
  public void deletePrefix(String prefix) {
    super.deletePrefix(supported(prefix));
  }

  static String supported(String location) {
    String scheme = scheme(location);
    if (scheme.equals("gs") || scheme.equals("gcs")) {
      throw new UsageException(location + ": Google Cloud Storage is not supported by this build (local paths, s3://, abfs(s)://,"
          + " wasb(s):// are; see docs/catalogs.md)");
    }
    return location;
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    supported(prefix);
    if (AZURE.contains(scheme(prefix))) {
      return azure().list(prefix);
    }
    return super.listPrefix(prefix);
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
