#!/usr/bin/env bash
# Builds the Spark jar, target/spark/extract-between-spark.jar: the JVM classes of
# spark/java/ (javac, Java 17, against the Spark jars the pyspark package ships) and the
# engine's native library for linux-x86_64 (this crate), which the classes load from the jar.
#
# Usage: bash spark/build.sh
#   PYTHON   an interpreter with pyspark installed (default: python3)
#   PROFILE  the cargo profile of the native library (default: dist, stripped)
#   ZIGBUILD=1  link the library with cargo-zigbuild against glibc 2.17's symbols, as the
#            manylinux2014 wheel is (scripts/dist.sh does): it then loads on any Linux
#            x86-64 a Spark runs on, not only on systems as new as the build machine
# Needs a JDK (javac and jar: apt-get install openjdk-17-jdk-headless).
set -euo pipefail
cd "$(dirname "$0")/.."
python="${PYTHON:-python3}"
profile="${PROFILE:-dist}"
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"

# Found without importing pyspark (which would need py4j and more): only its jars are read.
spark_jars="$("$python" -c 'import importlib.util, os; print(os.path.join(importlib.util.find_spec("pyspark").submodule_search_locations[0], "jars"))')" || {
  echo "spark/build.sh: $python has no pyspark (pip install pyspark): its jars are what the classes compile against" >&2
  exit 1
}
for tool in javac jar; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "spark/build.sh: no $tool on PATH (apt-get install openjdk-17-jdk-headless)" >&2
    exit 1
  }
done

if [ -n "${ZIGBUILD:-}" ]; then
  cargo zigbuild --locked --profile "$profile" --target x86_64-unknown-linux-gnu.2.17 -p extract-between-spark
  library="$target_dir/x86_64-unknown-linux-gnu/$profile/libextract_between_spark.so"
else
  cargo build --locked --profile "$profile" -p extract-between-spark
  library="$target_dir/$profile/libextract_between_spark.so"
fi
out="$target_dir/spark"
classes="$out/classes"
rm -rf "$classes"
mkdir -p "$classes"
# -Xlint:-path: the Spark jars' manifests name class-path entries pyspark does not ship.
javac -d "$classes" -cp "$spark_jars/*" --release 17 -Xlint:all,-path,-serial -Werror \
  spark/java/io/github/extractbetween/spark/*.java
native="$classes/io/github/extractbetween/spark/native/linux-x86_64"
mkdir -p "$native"
cp "$library" "$native/"
jar --create --file "$out/extract-between-spark.jar" -C "$classes" .
echo "$out/extract-between-spark.jar"
