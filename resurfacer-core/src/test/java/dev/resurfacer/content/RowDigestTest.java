package dev.resurfacer.content;

import static org.assertj.core.api.Assertions.assertThat;

import dev.resurfacer.content.ValueHash.Kind;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The digest both formats' verification compares: every fault a rewrite could make to a table's
 * rows changes it, and nothing else does.
 */
class RowDigestTest {
  private static final List<String> NAMES = List.of("id", "d", "s");

  /** Rows of (long id, double d, string s); a null element is a null value. */
  private static RowDigest digest(List<Object[]> rows) {
    RowDigest.Builder b = new RowDigest.Builder(3);
    for (Object[] r : rows) {
      if (r[0] == null) {
        b.nullColumn(0, 1, Kind.LONG);
      } else {
        b.column(0, 1, ValueHash.ofLong(Kind.LONG, (Long) r[0]));
      }
      if (r[1] == null) {
        b.nullColumn(1, 2, Kind.DOUBLE);
      } else {
        b.column(1, 2, ValueHash.ofDouble((Double) r[1]));
      }
      if (r[2] == null) {
        b.nullColumn(2, 3, Kind.STRING);
      } else {
        b.column(2, 3, ValueHash.ofString((String) r[2]));
      }
      b.endRow();
    }
    return b.build();
  }

  private static List<Object[]> rows() {
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {1L, -0.0, "a"});
    rows.add(new Object[] {2L, Double.NaN, "b"});
    rows.add(new Object[] {3L, 1.5, null});
    rows.add(new Object[] {4L, null, "d"});
    return rows;
  }

  @Test
  void theFaultsARewriteCouldMakeChangeTheDigest() {
    RowDigest before = digest(rows());

    List<Object[]> flipped = rows();
    flipped.get(0)[1] = 0.0;
    assertThat(before.differenceFrom(digest(flipped), NAMES)).hasValue("values differ in column d");

    List<Object[]> payload = rows();
    payload.get(1)[1] = Double.longBitsToDouble(0x7ff8000000000001L);
    assertThat(digest(payload)).isNotEqualTo(before);

    List<Object[]> nulled = rows();
    nulled.forEach(r -> r[2] = null);
    assertThat(before.differenceFrom(digest(nulled), NAMES)).hasValue("values differ in column s");

    List<Object[]> swapped = rows();
    Object s = swapped.get(0)[2];
    swapped.get(0)[2] = swapped.get(1)[2];
    swapped.get(1)[2] = s;
    assertThat(before.differenceFrom(digest(swapped), NAMES))
        .hasValue("every column holds the same values, but they are combined into different rows");

    List<Object[]> dropped = rows();
    dropped.remove(2);
    assertThat(before.differenceFrom(digest(dropped), NAMES))
        .hasValue("4 live input rows, 3 written");

    List<Object[]> duplicated = rows();
    duplicated.add(duplicated.get(0));
    assertThat(before.differenceFrom(digest(duplicated), NAMES))
        .hasValue("4 live input rows, 5 written");

    List<Object[]> overwritten = rows();
    overwritten.set(1, overwritten.get(0));
    assertThat(before.differenceFrom(digest(overwritten), NAMES)).isPresent();
  }

  @Test
  void orderAndSplitDoNotChangeTheDigest() {
    List<Object[]> shuffled = rows();
    Collections.reverse(shuffled);
    assertThat(digest(shuffled)).isEqualTo(digest(rows()));
    RowDigest split = digest(rows().subList(0, 1)).plus(digest(rows().subList(1, 4)));
    assertThat(split).isEqualTo(digest(rows()));
    assertThat(digest(rows()).differenceFrom(split, NAMES)).isEmpty();
  }

  @Test
  void valuesAreTaggedAndCanonical() {
    assertThat(ValueHash.ofNull(Kind.LONG)).isNotEqualTo(ValueHash.ofLong(Kind.LONG, 0));
    assertThat(ValueHash.ofLong(Kind.INT, 1)).isNotEqualTo(ValueHash.ofLong(Kind.LONG, 1));
    assertThat(ValueHash.ofLong(Kind.DATE, 1)).isNotEqualTo(ValueHash.ofLong(Kind.INT, 1));
    assertThat(ValueHash.ofDouble(-0.0)).isNotEqualTo(ValueHash.ofDouble(0.0));
    assertThat(ValueHash.ofFloat(-0.0f)).isNotEqualTo(ValueHash.ofFloat(0.0f));
    assertThat(ValueHash.ofString("Aa")).isNotEqualTo(ValueHash.ofString("BB"));
    assertThat(ValueHash.ofString("")).isNotEqualTo(ValueHash.ofNull(Kind.STRING));
    assertThat(ValueHash.ofString("abcdefghijklmnop"))
        .isNotEqualTo(ValueHash.ofString("ijklmnopabcdefgh"));
    assertThat(ValueHash.ofString("é✓"))
        .as("a string is its UTF-8 bytes")
        .isEqualTo(ValueHash.ofBytes(Kind.STRING, "é✓".getBytes(StandardCharsets.UTF_8)));
    assertThat(ValueHash.ofString("x"))
        .isNotEqualTo(ValueHash.ofBytes(Kind.BINARY, new byte[] {'x'}));
    assertThat(ValueHash.ofDecimal(new BigDecimal("1.00")))
        .isNotEqualTo(ValueHash.ofDecimal(new BigDecimal("1.0")));
    assertThat(ValueHash.ofDecimal(new BigDecimal("-1.25")))
        .as("unscaled long, bytes and BigDecimal agree")
        .isEqualTo(ValueHash.ofDecimal(2, -125))
        .isEqualTo(ValueHash.ofDecimal(2, new byte[] {(byte) 0xff, (byte) 0x83}));
    BigDecimal big = new BigDecimal("123456789012345678901.00001");
    assertThat(ValueHash.ofDecimal(big))
        .isEqualTo(ValueHash.ofDecimal(5, big.unscaledValue().toByteArray()))
        .isNotEqualTo(ValueHash.ofDecimal(new BigDecimal("123456789012345678901.00002")));
    long entries = ValueHash.entry(1, 2) + ValueHash.entry(3, 4);
    assertThat(ValueHash.map(2, entries))
        .as("a map's entry order does not count")
        .isEqualTo(ValueHash.map(2, ValueHash.entry(3, 4) + ValueHash.entry(1, 2)));
    assertThat(ValueHash.element(ValueHash.element(ValueHash.list(2), 1), 2))
        .isNotEqualTo(ValueHash.element(ValueHash.element(ValueHash.list(2), 2), 1));
  }

  @Test
  void aBlockFoldedColumnByColumnEqualsRowByRow() {
    long[] ids = {1, 2, 3, 4};
    double[] ds = {-0.0, Double.NaN, 1.5, 0};
    boolean[] dNulls = {false, false, false, true};
    long[] strings = {
      ValueHash.ofString("a"),
      ValueHash.ofString("b"),
      ValueHash.ofNull(Kind.STRING),
      ValueHash.ofString("d")
    };
    boolean[] sNulls = {false, false, true, false};
    RowBlock block = new RowBlock(8, 3);
    block.reset(4);
    foldColumns(block, ids, ds, dNulls, strings, sNulls);
    RowDigest.Builder b = new RowDigest.Builder(3);
    b.addRows(block);
    assertThat(b.build()).isEqualTo(digest(rows()));

    block.reset(4);
    block.delete(2);
    foldColumns(block, ids, ds, dNulls, strings, sNulls);
    RowDigest.Builder withDelete = new RowDigest.Builder(3);
    withDelete.addRows(block);
    List<Object[]> live = rows();
    live.remove(2);
    assertThat(withDelete.build()).as("a deleted row counts nowhere").isEqualTo(digest(live));

    // the block reused once more, with no row deleted or null: nothing left of the blocks before
    double[] present = {-0.0, Double.NaN, 1.5, 2.5};
    block.reset(4);
    foldColumns(block, ids, present, null, strings, null);
    RowDigest.Builder reused = new RowDigest.Builder(3);
    reused.addRows(block);
    RowBlock fresh = new RowBlock(8, 3);
    fresh.reset(4);
    foldColumns(fresh, ids, present, null, strings, null);
    RowDigest.Builder fromFresh = new RowDigest.Builder(3);
    fromFresh.addRows(fresh);
    assertThat(reused.build()).isEqualTo(fromFresh.build());
  }

  /** Folds the three test columns into {@code block}: ids (field 1), doubles (2), strings (3). */
  private static void foldColumns(
      RowBlock block, long[] ids, double[] ds, boolean[] dNulls, long[] strings, boolean[] sNulls) {
    block.foldLongs(0, 1, Kind.LONG, ids, null);
    block.foldDoubles(1, 2, ds, dNulls);
    block.fold(2, 3, strings, sNulls);
  }

  /** The one long whose hash is a null's: 0x6a09e667f3bcc909 (a value's hash is a bijection of the value). */
  private static final long NULL_TWIN = 0x6a09e667f3bcc909L;

  @Test
  void aNullNeverPassesForTheValueThatHashesAsIt() {
    assertThat(ValueHash.ofLong(Kind.LONG, NULL_TWIN))
        .as("the hash alone cannot tell them apart")
        .isEqualTo(ValueHash.ofNull(Kind.LONG));
    List<Object[]> rows = new ArrayList<>();
    rows.add(new Object[] {NULL_TWIN, 1.0, "a"});
    rows.add(new Object[] {null, 2.0, "b"});
    RowDigest before = digest(rows);

    List<Object[]> nulled = new ArrayList<>();
    nulled.add(new Object[] {null, 1.0, "a"});
    nulled.add(new Object[] {null, 2.0, "b"});
    assertThat(before.differenceFrom(digest(nulled), NAMES))
        .as("the value NULLed")
        .hasValue("values differ in column id");

    List<Object[]> unNulled = new ArrayList<>();
    unNulled.add(new Object[] {NULL_TWIN, 1.0, "a"});
    unNulled.add(new Object[] {NULL_TWIN, 2.0, "b"});
    assertThat(before.differenceFrom(digest(unNulled), NAMES))
        .as("the null given the value")
        .hasValue("values differ in column id");

    List<Object[]> swapped = new ArrayList<>();
    swapped.add(new Object[] {null, 1.0, "a"});
    swapped.add(new Object[] {NULL_TWIN, 2.0, "b"});
    assertThat(before.differenceFrom(digest(swapped), NAMES))
        .as("the null and the value swapped between rows")
        .hasValue("every column holds the same values, but they are combined into different rows");

    RowBlock block = new RowBlock(4, 3);
    block.reset(2);
    block.foldLongs(0, 1, Kind.LONG, new long[] {NULL_TWIN, 0}, new boolean[] {false, true});
    block.foldDoubles(1, 2, new double[] {1.0, 2.0}, null);
    block.fold(2, 3, new long[] {ValueHash.ofString("a"), ValueHash.ofString("b")}, null);
    RowDigest.Builder columnar = new RowDigest.Builder(3);
    columnar.addRows(block);
    assertThat(columnar.build()).as("folded a column at a time").isEqualTo(before);
  }

  @Test
  void aNestedNullIsFoldedApartFromEveryValue() {
    long twin = ValueHash.ofLong(Kind.LONG, NULL_TWIN);
    long s = ValueHash.struct();
    assertThat(ValueHash.nullField(s, 1)).isNotEqualTo(ValueHash.field(s, 1, twin));
    long l = ValueHash.list(1);
    assertThat(ValueHash.nullElement(l)).isNotEqualTo(ValueHash.element(l, twin));
    long k = ValueHash.ofString("k");
    assertThat(ValueHash.nullEntry(k)).isNotEqualTo(ValueHash.entry(k, twin));
  }
}
