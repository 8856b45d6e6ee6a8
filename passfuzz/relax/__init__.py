"""Between Programs and Relax: a Program built into an IRModule with BlockBuilder, an IRModule
imported back into a Program, and models imported through TVM's frontends."""
