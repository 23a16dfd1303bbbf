package dev.resurfacer.names;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The one quoting rule: backticks (Spark) or double quotes (Trino) per part, rendered with backticks where needed. */
class IdentifiersTest {
  @Test
  void plainNamesReadAndRenderAsBefore() {
    assertThat(TableName.parse("raw.events").parts()).containsExactly("raw", "events");
    assertThat(TableName.parse("a.b.c").namespace()).containsExactly("a", "b");
    assertThat(TableName.parse("raw.events")).hasToString("raw.events");
    assertThat(TableName.parse("db.my-table")).hasToString("db.my-table");
    assertThat(TableName.parse("données.événements")).hasToString("données.événements");
  }

  @Test
  void backticksAndDoubleQuotesQuoteOnePartEach() {
    TableName spark = TableName.parse("db.`table:with.special:chars`");
    assertThat(spark.namespace()).containsExactly("db");
    assertThat(spark.name()).isEqualTo("table:with.special:chars");
    assertThat(TableName.parse("\"db\".\"table:with.special:chars\"")).isEqualTo(spark);
    assertThat(TableName.parse("`db`.\"table:with.special:chars\"")).isEqualTo(spark);
    assertThat(spark).hasToString("db.`table:with.special:chars`");
    assertThat(TableName.parse("`a``b`.\"c\"\"d\"").parts()).containsExactly("a`b", "c\"d");
    assertThat(TableName.parse("`my.ns`.t").namespace()).containsExactly("my.ns");
  }

  @Test
  void renderingRoundTripsEveryName() {
    List<List<String>> names = List.of(
        List.of("db", "table:with.special:chars"),
        List.of("db", "letter/abc"),
        List.of("db", "with space"),
        List.of("a.b", "c"),
        List.of("ns", "a`b"),
        List.of("ns", "a\"b"),
        List.of("ns", "star*"),
        List.of("ns", "comma,paren()"),
        List.of("ns", "tab\there"),
        List.of("日本", "表"),
        List.of("ns", " leading"));
    for (List<String> parts : names) {
      TableName n = new TableName(parts.subList(0, parts.size() - 1), parts.get(parts.size() - 1));
      assertThat(TableName.parse(n.toString())).as(n.toString()).isEqualTo(n);
      assertThat(NameGlob.parse(n.toString(), "glob").matches(n.toString()))
          .as(n.toString())
          .isTrue();
    }
    assertThat(new TableName(List.of("db"), "with space")).hasToString("db.`with space`");
    assertThat(new TableName(List.of("db"), "letter/abc")).hasToString("db.letter/abc");
  }

  @Test
  void unquotedPartsMayHoldColonsSlashesAndBlanksWhenUnambiguous() {
    assertThat(TableName.parse("db.letter/abc").name()).isEqualTo("letter/abc");
    assertThat(TableName.parse("db.a:b").name()).isEqualTo("a:b");
    assertThat(TableName.parse("db.with space").name()).isEqualTo("with space");
  }

  @Test
  void malformedNamesAreUsageErrors() {
    for (String bad :
        List.of("", "events", ".a", "a.", "a..b", "a.`b", "a.`b`c", "a.b`c`", "a.``", "`a.b`")) {
      assertThatThrownBy(() -> TableName.parse(bad)).as(bad).isInstanceOf(UsageException.class);
    }
    assertThatThrownBy(() -> TableName.parse("events")).hasMessageContaining("namespace.table");
    assertThatThrownBy(() -> TableName.parse("db.`x")).hasMessageContaining("unclosed `");
  }

  @Test
  void canonicalLeavesWhatIsNoTableNameAlone() {
    assertThat(TableName.canonical("\"db\".\"t\"")).isEqualTo("db.t");
    assertThat(TableName.canonical("/data/raw/events")).isEqualTo("/data/raw/events");
  }

  @Test
  void embeddedReferencesEndAtBlanksCommasAndParentheses() {
    Identifiers.Read r = Identifiers.read("letter/abc DESC", 0, true, "sort");
    assertThat(r.parts()).containsExactly("letter/abc");
    assertThat(r.end()).isEqualTo(10);
    Identifiers.Read nested = Identifiers.read("`a b`.c, d", 0, true, "sort");
    assertThat(nested.parts()).containsExactly("a b", "c");
    assertThat(nested.end()).isEqualTo(7);
    assertThat(Identifiers.read("day(ts)", 0, true, "sort").parts()).containsExactly("day");
  }

  @Test
  void listsSplitOutsideQuotesAndParentheses() {
    assertThat(Identifiers.splitList("a, `b,c`, bucket(16, id), \"d,e\"", "--columns"))
        .containsExactly("a", "`b,c`", "bucket(16, id)", "\"d,e\"");
    assertThat(Identifiers.splitLists(List.of("a,b", "`c,d`"), "--columns"))
        .containsExactly("a", "b", "`c,d`");
    assertThatThrownBy(() -> Identifiers.splitList("a,,b", "--columns"))
        .isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> Identifiers.splitList("a,`b", "--columns"))
        .hasMessageContaining("unclosed");
  }

  @Test
  void globsMatchPartsNotSpellings() {
    assertThat(NameGlob.parse("db.*", "glob").matches("db.`table:with.special:chars`"))
        .isTrue();
    assertThat(NameGlob.parse("db.table:*", "glob").matches("db.`table:with.special:chars`"))
        .isTrue();
    assertThat(NameGlob.parse("*.`table:with.special:chars`", "glob")
            .matches("db.`table:with.special:chars`"))
        .isTrue();
    assertThat(NameGlob.parse("db.`table:with.special:chars`", "glob")
            .matches("\"db\".\"table:with.special:chars\""))
        .isTrue();
    assertThat(NameGlob.parse("db.`table:with.special:chars`", "glob")
            .matches("db.table:with.special:chars"))
        .isFalse();
    assertThat(NameGlob.parse("raw.*", "glob").matches("raw.web.clicks")).isTrue();
    assertThat(NameGlob.parse("raw.*", "glob").matches("rawx.a")).isFalse();
    assertThat(NameGlob.parse("*", "glob").matches("x.y")).isTrue();
    // a quoted star is a literal star
    assertThat(NameGlob.parse("db.`a*`", "glob").isExact()).isTrue();
    assertThat(NameGlob.parse("db.`a*`", "glob").matches("db.`a*`")).isTrue();
    assertThat(NameGlob.parse("db.`a*`", "glob").matches("db.ab")).isFalse();
    assertThat(NameGlob.parse("db.a+b", "glob").matches("db.aab")).isFalse();
    assertThatThrownBy(() -> NameGlob.parse("events", "tables key"))
        .hasMessageContaining("namespace.table");
    assertThatThrownBy(() -> NameGlob.parse("db..x", "tables key"))
        .isInstanceOf(UsageException.class);
  }

  @Test
  void specificityCountsLiteralCharacters() {
    NameGlob g = NameGlob.parse("raw.ev*", "glob");
    assertThat(g.literalPrefix()).isEqualTo(6);
    assertThat(g.literals()).isEqualTo(6);
    assertThat(NameGlob.parse("`r*`.*s", "glob").literalPrefix()).isEqualTo(3);
  }
}
