# Read by setup.sh's cmake (-DCMAKE_PROJECT_INCLUDE): llama.cpp's common library and its server compile as unity
# builds, a batch of sources per translation unit, so the JSON and template headers each of their sources includes
# are compiled a few times instead of once per source. Their compiler time on 2 cores: 133 s instead of 248 s. The
# model code, ggml's kernels and mtmd (whose sources do not compile together) compile source by source, as upstream.
include_guard(GLOBAL)
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL
  set_target_properties llama-common server-context llama-server-impl PROPERTIES UNITY_BUILD ON)
