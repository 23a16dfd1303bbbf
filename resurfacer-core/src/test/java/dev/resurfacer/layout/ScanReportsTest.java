package dev.resurfacer.layout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ScanReportsTest {
  @TempDir
  Path dir;

  private static String scan(String table, String filter, long scanned) {
    return "{\"format\":\"resurfacer-scan-report\",\"version\":1,\"kind\":\"scan\",\"time\":\"2026-11-01T10:00:00Z\",\"table\":\""
        + table
        + "\",\"snapshot-id\":7,\"filter\":" + filter
        + ",\"filter-values\":true,\"projected-field-names\":[\"a\"],"
        + "\"data-files-scanned\":" + scanned + ",\"data-files-skipped\":3,\"bytes-scanned\":100}";
  }

  @Test
  void malformedForeignAndOtherTablesLinesAreCountedNeverFatal() throws Exception {
    Files.writeString(
        dir.resolve("a.jsonl"),
        String.join(
            "\n",
            scan("cat.db.events", "{\"type\":\"eq\",\"term\":\"user_id\",\"value\":5}", 2),
            "not json",
            "{\"format\":\"something-else\",\"table\":\"db.events\"}",
            "[1,2,3]",
            "{\"format\":\"resurfacer-scan-report\",\"kind\":\"scan\",\"table\":\"db.events\"}",
            "{\"format\":\"resurfacer-scan-report\",\"kind\":\"scan\",\"table\":\"db.events\",\"data-files-scanned\":1,\"filter\":[]}",
            scan("db.other", "true", 1),
            "{\"format\":\"resurfacer-scan-report\",\"kind\":\"collector\",\"dropped\":4}",
            "",
            scan(
                "DB.EVENTS",
                "{\"type\":\"and\",\"left\":{\"type\":\"lt\",\"term\":\"ts\",\"value\":\"(timestamp)\"},"
                    + "\"right\":{\"type\":\"in\",\"term\":\"event\",\"values\":[\"a\",\"(hash-1234)\"]}}",
                1)));
    Files.write(dir.resolve("binary.jsonl"), new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1, '\n'});
    ScanReports.Loaded l = ScanReports.read(dir, "db.events");
    assertThat(l.scans()).hasSize(2);
    assertThat(l.otherTables()).isEqualTo(1);
    assertThat(l.dropped()).isEqualTo(4);
    // not json, foreign format, an array, no data-files-scanned, a filter that is not an
    // expression, the binary file
    assertThat(l.skipped()).isEqualTo(6);
    RecordedScan first = l.scans().get(0);
    assertThat(first.filter()).isEqualTo(new ScanFilter.Compare("user_id", ScanFilter.Op.EQ, 5L));
    ScanFilter second = l.scans().get(1).filter();
    assertThat(second.columns()).containsExactly("event", "ts");
    // sanitized literals are unknown (null), not the text Iceberg put in their place
    assertThat(second)
        .isEqualTo(new ScanFilter.And(
            new ScanFilter.Compare("ts", ScanFilter.Op.LT, null),
            new ScanFilter.In("event", java.util.Arrays.asList("a", null))));
  }

  @Test
  void aMissingDirectoryIsAUsageError() {
    assertThatThrownBy(() -> ScanReports.read(dir.resolve("nope"), "db.t"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("no scan reports at");
  }

  @Test
  void tableNamesMatchWithOrWithoutACatalogPrefix() {
    assertThat(ScanReports.matches("bench.db.events", "db.events")).isTrue();
    assertThat(ScanReports.matches("db.events", "bench.db.events")).isTrue();
    assertThat(ScanReports.matches("db.events2", "db.events")).isFalse();
    assertThat(ScanReports.matches("file:/lake/t/", "/lake/t")).isTrue();
  }
}
