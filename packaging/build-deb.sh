#!/usr/bin/env bash
# Build the PyInstaller one-folder bundle and wrap it in a Debian package.
#
#   bash packaging/build-deb.sh        # from a fresh clone, on Debian or Ubuntu
#
# Writes dist/schedule-explorer/ (the bundle, runnable in place) and
# dist/schedule-explorer_<version>_<arch>.deb. Needs python3 (3.11+) with venv, binutils
# (PyInstaller runs objdump), dpkg-deb (in every Debian system) and, for the self-test, the
# Qt libraries and font of the README's system-package list. Builds with $PYTHON (default
# python3); uses its environment when it already has the app and PyInstaller, otherwise makes
# its own virtualenv in build/venv and installs the app and PyInstaller from PyPI there.
# The bundle's self-test runs before the package is made: a broken bundle is never packaged.
set -euo pipefail
cd "$(dirname "$0")/.."

APP_ID=org.schedule_explorer.ScheduleExplorer
PY=${PYTHON:-python3}
echo "== building with $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"

if ! "$PY" - <<'PY' 2>/dev/null; then
import importlib.metadata as m
m.version("schedule-explorer"), m.version("pyinstaller")
PY
  echo "== build environment (build/venv)"
  "$PY" -m venv build/venv
  build/venv/bin/python -m pip install -q --upgrade pip
  build/venv/bin/python -m pip install -q ".[package]"
  PY=build/venv/bin/python
fi
version=$("$PY" -c "import explorer; print(explorer.__version__)")
arch=$(dpkg --print-architecture)

echo "== the engine's per-run path compiled with mypyc (adr/0013; SE_COMPILE=0: plain)"
# Byte-identical records, faster runs. Without a C compiler, the Python headers or mypy the
# build says why and the bundle runs the plain modules: slower, never different. A folder
# already compiled by packaging/compile_engine.py with the same Python is reused when
# SE_COMPILED_DIR names it.
if [ "${SE_COMPILE:-1}" = 0 ]; then
  SE_COMPILED_DIR=
elif [ -n "${SE_COMPILED_DIR:-}" ]; then
  SE_COMPILED_DIR=$(cd "$SE_COMPILED_DIR" && pwd)
  echo "reusing the compiled engine in $SE_COMPILED_DIR"
elif "$PY" packaging/compile_engine.py --into build/compiled; then
  SE_COMPILED_DIR=$(pwd)/build/compiled
else
  SE_COMPILED_DIR=
  echo "compiling failed: the bundle carries the plain engine (same records, slower)" >&2
fi
export SE_COMPILED_DIR

echo "== PyInstaller bundle (dist/schedule-explorer)"
start=$(date +%s)
"$PY" -m PyInstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller \
  packaging/schedule-explorer.spec
echo "bundle built in $(($(date +%s) - start)) s, $(du -sh dist/schedule-explorer | cut -f1)"

echo "== bundle self-test (offscreen)"
dist/schedule-explorer/schedule-explorer --self-test

echo "== Debian package"
root=build/deb/schedule-explorer_${version}_${arch}
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications" \
  "$root/usr/share/metainfo" "$root/usr/share/mime/packages" "$root/usr/share/icons" \
  "$root/usr/share/doc/schedule-explorer"
cp -a dist/schedule-explorer "$root/opt/schedule-explorer"
ln -s /opt/schedule-explorer/schedule-explorer "$root/usr/bin/schedule-explorer"
cp "packaging/$APP_ID.desktop" "$root/usr/share/applications/"
cp "packaging/$APP_ID.metainfo.xml" "$root/usr/share/metainfo/"
cp "packaging/$APP_ID.mime.xml" "$root/usr/share/mime/packages/$APP_ID.xml"
cp -r resources/icons/hicolor "$root/usr/share/icons/"
cp README.md "$root/usr/share/doc/schedule-explorer/"
chmod -R u+rwX,go+rX,go-w "$root"

echo "== desktop entry and AppStream metainfo, as installed"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$root/usr/share/applications/$APP_ID.desktop"
else
  echo "desktop-file-validate not found (apt-get install desktop-file-utils): not checked"
fi
if command -v appstreamcli >/dev/null; then
  # the metainfo, and that its desktop entry and icon are where it says
  appstreamcli validate-tree --no-net "$root"
else
  echo "appstreamcli not found (apt-get install appstream): not checked"
fi
# The menu, icon and MIME caches are refreshed by the dpkg triggers of desktop-file-utils,
# hicolor-icon-theme and shared-mime-info: no maintainer scripts are needed.
cat > "$root/DEBIAN/control" <<CONTROL
Package: schedule-explorer
Version: ${version}
Architecture: ${arch}
Section: devel
Priority: optional
Maintainer: Schedule Explorer team <team@schedule-explorer.invalid>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: libc6, libgl1, libegl1, libfontconfig1, libfreetype6, libglib2.0-0, libdbus-1-3,
 libxkbcommon0, libxkbcommon-x11-0, libx11-6, libx11-xcb1, libxcb1, libxcb-cursor0,
 libxcb-icccm4, libxcb-image0, libxcb-keysyms1, libxcb-randr0, libxcb-render-util0,
 libxcb-shape0, libxcb-xkb1, fonts-dejavu-core
Recommends: hicolor-icon-theme, shared-mime-info, desktop-file-utils
Description: see what Apache Airflow 3.3's scheduler will do with your schedules
 Schedule Explorer replays DAGs, their schedules and what happens to them on a
 simulated clock with Airflow 3.3.2's scheduling rules: which runs are created,
 when, with which logical_date, data interval and run_after, across DST days,
 catchup floods, pauses, manual runs and failures. A desktop app (schedule-explorer)
 and the same engine headless (schedule-explorer simulate, validate, next-runs,
 explain). schedule-explorer --self-test checks the installation offscreen.
CONTROL
# zstd by default: for the ~290 MB bundle xz (dpkg's default) takes about 4 min of CPU for
# an 80 MB package, zstd 4 s for 107 MB. DEB_COMPRESSION=xz for a release. dpkg reads zstd
# since Debian 12 and Ubuntu 21.10; the bundle's glibc needs a release at least as new as
# the build machine's anyway.
dpkg-deb --build --root-owner-group -Z"${DEB_COMPRESSION:-zstd}" "$root" dist/
ls -l "dist/schedule-explorer_${version}_${arch}.deb"
