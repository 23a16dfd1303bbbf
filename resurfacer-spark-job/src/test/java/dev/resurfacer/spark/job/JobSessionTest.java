package dev.resurfacer.spark.job;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class JobSessionTest {
  @Test
  void ourRedactionExtendsSparksDefaultPatternInsteadOfReplacingIt() throws Exception {
    // Spark's own default, read from its config entry (Scala's package object: not nameable from
    // Java)
    Object config = Class.forName("org.apache.spark.internal.config.package$")
        .getField("MODULE$")
        .get(null);
    Object entry = config.getClass().getMethod("SECRET_REDACTION_PATTERN").invoke(config);
    String sparks = (String) entry.getClass().getMethod("defaultValueString").invoke(entry);
    assertThat(JobSession.SPARK_REDACTION_DEFAULT).isEqualTo(sparks);

    String ours = JobSession.extended(
        sparks, List.of(Pattern.quote("spark.custom.auth"), Pattern.quote("x.y")));
    Pattern p = Pattern.compile(ours);
    assertThat(p.matcher("spark.custom.auth").find()).isTrue();
    assertThat(p.matcher("spark.hadoop.fs.s3a.secret.key").find()).isTrue();
    assertThat(p.matcher("x.y").find()).isTrue();
    assertThat(p.matcher("xzy").find()).as("quoted: a dot is a dot").isFalse();
    assertThat(p.matcher("spark.executor.memory").find()).isFalse();
    assertThat(JobSession.extended("", List.of("a"))).isEqualTo("a");
  }
}
