package dev.periscope.harness.mcp;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Durations as people write them on a command line: {@code 90s}, {@code 30m}, {@code 2h}. */
final class Durations implements CommandLine.ITypeConverter<Duration> {
  private static final Pattern TEXT = Pattern.compile("([1-9][0-9]{0,6})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    Matcher m = TEXT.matcher(value.strip());
    if (!m.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + value + "' is not a duration: a whole number and a unit, as 90s, 30m or 2h");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      default -> Duration.ofHours(n);
    };
  }

  /** The shortest of those spellings that says {@code d} exactly. */
  static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1_000 == 0) {
      return ms / 1_000 + "s";
    }
    return ms + "ms";
  }
}
