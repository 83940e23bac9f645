package dev.periscope.api.browser;

/**
 * How tools and transitions spell the constants of the actions' enums (a button, a wait's
 * condition, a gesture): lower case, words joined by a hyphen; and back, refusing a spelling that
 * names none.
 */
final class EnumIds {
  private EnumIds() {}

  /** An enum constant as tools spell it: lower case, words joined by a hyphen. */
  static String id(Enum<?> constant) {
    return constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** Every constant's id, in order: what a tool's schema offers. */
  static <E extends Enum<E>> java.util.List<String> all(Class<E> type) {
    return java.util.Arrays.stream(type.getEnumConstants()).map(EnumIds::id).toList();
  }

  /** Every constant's id, comma-separated. */
  static <E extends Enum<E>> String ids(Class<E> type) {
    StringBuilder b = new StringBuilder();
    for (E e : type.getEnumConstants()) {
      b.append(b.length() == 0 ? "" : ", ").append(id(e));
    }
    return b.toString();
  }

  /**
   * The constant whose id is {@code id}, else {@code BROWSER_INVALID_ARGUMENT} naming the field.
   */
  static <E extends Enum<E>> E named(Class<E> type, String id, String field) {
    for (E e : type.getEnumConstants()) {
      if (id(e).equals(id)) {
        return e;
      }
    }
    throw ActionChecks.invalid(field + ": one of " + ids(type) + " is required (found " + id + ")");
  }
}
