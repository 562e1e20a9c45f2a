#!/usr/bin/env bash
# Build the PyInstaller bundle and wrap it in a Debian package.
set -euo pipefail
cd "$(dirname "$0")/.."
version=$(python -c "import explorer; print(explorer.__version__)")
pyinstaller --noconfirm --distpath dist --workpath build/pyinstaller packaging/schedule-explorer.spec
root=build/deb/schedule-explorer_${version}
rm -rf "$root"
mkdir -p "$root/DEBIAN" "$root/opt" "$root/usr/bin" "$root/usr/share/applications"
cp -a dist/schedule-explorer "$root/opt/schedule-explorer"
ln -s /opt/schedule-explorer/explorer "$root/usr/bin/explorer"
cp packaging/schedule-explorer.desktop "$root/usr/share/applications/"
cat > "$root/DEBIAN/control" <<CONTROL
Package: schedule-explorer
Version: ${version}
Architecture: $(dpkg --print-architecture)
Maintainer: Schedule Explorer team <team@schedule-explorer.invalid>
Depends: libgl1, libegl1, libfontconfig1, libxkbcommon0, libdbus-1-3, fonts-dejavu-core
Description: See what Apache Airflow 3.3's scheduler will do with your schedules
CONTROL
dpkg-deb --build --root-owner-group "$root" dist/
