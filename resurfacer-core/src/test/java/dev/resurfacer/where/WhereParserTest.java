package dev.resurfacer.where;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.resurfacer.UsageException;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

class WhereParserTest {
  @Test
  void andBindsTighterThanOrAndParenthesesGroup() {
    assertThat(WhereParser.parse("a = 1 OR b = 'x' AND c IS NOT NULL"))
        .isEqualTo(new Where.Or(
            new Where.Compare("a", Where.Op.EQ, 1L),
            new Where.And(new Where.Compare("b", Where.Op.EQ, "x"), new Where.IsNull("c", true))));
    assertThat(WhereParser.parse("(a <> 1 or b >= 2.5) and d not in ('it''s', true)"))
        .isEqualTo(new Where.And(
            new Where.Or(
                new Where.Compare("a", Where.Op.NOT_EQ, 1L),
                new Where.Compare("b", Where.Op.GT_EQ, new BigDecimal("2.5"))),
            new Where.In("d", List.of("it's", true), true)));
  }

  @Test
  void blankIsEveryRow() {
    assertThat(WhereParser.parse(null)).isEqualTo(Where.ALL);
    assertThat(WhereParser.parse("  ")).isEqualTo(Where.ALL);
  }

  @Test
  void badInputIsOneUsageError() {
    assertThatThrownBy(() -> WhereParser.parse("a = 1 b"))
        .isInstanceOf(UsageException.class)
        .hasMessage("--where: unexpected 'b' in: a = 1 b");
    assertThatThrownBy(() -> WhereParser.parse("a = x"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("'x' is not a value");
    assertThatThrownBy(() -> WhereParser.parse("a = 'open"))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("unterminated string");
    assertThatThrownBy(() -> WhereParser.parse("a NOT = 1"))
        .isInstanceOf(UsageException.class)
        .hasMessage("--where: expected IN after NOT");
  }
}
