package dev.periscope.credentials;

import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A project's credential references ({@code credentials:} in project.yaml), each resolved from its
 * source: an environment variable ({@code github: {env: GITHUB_TOKEN}}) or the profile's encrypted
 * store ({@code shop: {store: shop-password}}), and each optionally bound to the origins it may be
 * filled into. An unset variable, an empty value or a name missing from the store resolves to
 * nothing, never to an empty secret.
 */
public final class ProjectCredentialService implements CredentialService {
  /** Where a reference's value comes from, and where it may go. */
  public record Source(
      Optional<String> environmentVariable,
      Optional<String> storeName,
      List<OriginPattern> origins) {
    public Source {
      if (environmentVariable.isPresent() == storeName.isPresent()) {
        throw new IllegalArgumentException("a credential has exactly one source: env or store");
      }
      origins = List.copyOf(origins);
    }

    public static Source environment(String variable, List<OriginPattern> origins) {
      return new Source(Optional.of(variable), Optional.empty(), origins);
    }

    public static Source store(String name, List<OriginPattern> origins) {
      return new Source(Optional.empty(), Optional.of(name), origins);
    }
  }

  private final Map<String, Source> sources;
  private final Function<String, String> environment;
  private final Optional<CredentialStore> store;

  public ProjectCredentialService(
      Map<String, Source> sources,
      Function<String, String> environment,
      Optional<CredentialStore> store) {
    this.sources = new TreeMap<>(sources);
    this.environment = environment;
    this.store = store;
  }

  /** References read from the process environment and the profile's store. */
  public ProjectCredentialService(Map<String, Source> sources, Optional<CredentialStore> store) {
    this(sources, System::getenv, store);
  }

  @Override
  public Set<String> references() {
    return sources.keySet();
  }

  @Override
  public Optional<Secret> resolve(String reference) {
    Source source = sources.get(reference);
    if (source == null) {
      return Optional.empty();
    }
    if (source.environmentVariable().isPresent()) {
      String value = environment.apply(source.environmentVariable().get());
      return value == null || value.isEmpty() ? Optional.empty() : Optional.of(Secret.of(value));
    }
    return store.flatMap(s -> s.get(source.storeName().get()));
  }

  @Override
  public List<OriginPattern> origins(String reference) {
    Source source = sources.get(reference);
    return source == null ? List.of() : source.origins();
  }

  @Override
  public String toString() {
    return "ProjectCredentialService" + sources.keySet();
  }
}
