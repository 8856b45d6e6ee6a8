"""PassContext configurations as Hypothesis data (passfuzz.passes.pass_configs): a tuple of (key,
value) items (a struct key's value: its (field, value) pairs), keys in the table's order, shrinking toward no key (the default build) and each
value toward the first the table lists."""

from hypothesis import strategies as st

from passfuzz.passes.pass_configs import PASS_CONFIGS


def _value(config) -> st.SearchStrategy:
    if not config.fields:
        return st.sampled_from(config.values)
    return st.tuples(*[st.sampled_from(values) for values in config.values]).map(
        lambda chosen, names=config.fields: tuple(zip(names, chosen)))


def pass_configs(max_keys: int = 4) -> st.SearchStrategy:
    keys = st.lists(st.sampled_from(range(len(PASS_CONFIGS))), unique=True, max_size=max_keys).map(sorted)
    return keys.flatmap(lambda chosen: st.tuples(*[st.tuples(st.just(PASS_CONFIGS[i].key), _value(PASS_CONFIGS[i]))
                                                   for i in chosen]))
