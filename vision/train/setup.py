"""`python -m vision.train.setup`: install what training draws cards and tables with.

Debian's font packages (about 1,500 fonts in some 400 design groups: book, signage, slab,
handwriting, monospace and display faces), its backgrounds packages (photographs of wood,
paper, canvas, cork, meadows, used as table surfaces), and Google's font families from the npm
registry (`vision.train.fontsource`: about 1,470 more families, for training only). Needs root
(or sudo) and apt; `--no-registry` leaves the npm registry's fonts out. The product itself never
needs them: only training and the unseen-design evaluation sets do.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

_FONTS = """
fonts-cardo fonts-clear-sans fonts-comic-neue fonts-hermit fonts-dkg-handwriting
fonts-essays1743 fonts-adf-accanthis fonts-adf-baskervald fonts-adf-berenis fonts-adf-gillius
fonts-adf-ikarius fonts-adf-irianis fonts-adf-libris fonts-adf-mekanus fonts-adf-oldania
fonts-adf-romande fonts-adf-solothurn fonts-adf-switzera fonts-adf-tribun fonts-adf-universalis
fonts-adf-verana fonts-aenigma fonts-agave fonts-allerta fonts-anonymous-pro fonts-apropal
fonts-arapey fonts-arkpandora fonts-averia-gwf fonts-averia-sans-gwf fonts-averia-serif-gwf
fonts-b612 fonts-babelstone-modern fonts-bajaderka fonts-bebas-neue fonts-beteckna
fonts-blankenburg fonts-breip fonts-bwht fonts-cabin fonts-cabinsketch fonts-cantarell
fonts-century-catalogue fonts-cherrybomb fonts-cmu fonts-comfortaa fonts-compagnon
fonts-courier-prime fonts-crosextra-caladea fonts-crosextra-carlito fonts-dancingscript
fonts-dejavu-core fonts-dejavu-extra fonts-dosis fonts-dustin fonts-ebgaramond
fonts-ebgaramond-extra fonts-ecolier-court fonts-elstob fonts-engadget fonts-eurofurence
fonts-f500 fonts-fantasque-sans fonts-fanwood fonts-femkeklaver fonts-firacode
fonts-freefont-ttf fonts-gamaliel fonts-georgewilliams fonts-gfs-artemisia fonts-gfs-baskerville
fonts-gfs-bodoni-classic fonts-gfs-didot fonts-gfs-neohellenic fonts-gfs-olga fonts-gfs-porson
fonts-gfs-solomos fonts-gfs-theokritos fonts-gnutypewriter fonts-go fonts-gotico-antiqua
fonts-goudybookletter fonts-hack fonts-humor-sans fonts-inconsolata fonts-inter fonts-isabella
fonts-jetbrains-mono fonts-junction fonts-jura fonts-karla fonts-karmilla fonts-kaushanscript
fonts-klaudia-berenika fonts-kristi fonts-lato fonts-le-murmure fonts-league-mono
fonts-league-spartan fonts-leckerli-one fonts-levien-museum fonts-levien-typoscript
fonts-liberation fonts-liberation2 fonts-lindenhill fonts-linuxlibertine fonts-lobster
fonts-lobstertwo fonts-manrope fonts-millimetre fonts-monofur fonts-mononoki fonts-mph-2b-damase
fonts-national-park fonts-croscore fonts-noto-core fonts-noto-mono fonts-ocr-a fonts-ocr-b
fonts-okolaks fonts-oldstandard fonts-open-sans fonts-opendin fonts-opendyslexic fonts-paratype
fonts-play fonts-prociono fonts-quattrocento fonts-quicksand fonts-radisnoir fonts-rampart
fonts-roadgeek fonts-roboto-unhinted fonts-roboto-slab fonts-rocknroll fonts-routed-gothic
fonts-rufscript fonts-sil-andika fonts-sil-charis fonts-sil-doulos fonts-sil-gentium
fonts-sil-gentium-basic fonts-solide-mirage fonts-sora fonts-staypuft fonts-stick
fonts-summersby fonts-tiresias fonts-tomsontalks fonts-train fonts-tuffy fonts-ubuntu-title
fonts-uralic fonts-urw-base35 fonts-vollkorn fonts-yanone-kaffeesatz fonts-lmodern fonts-texgyre
fonts-oxygen fonts-sjfonts fonts-triod-postnaja fonts-wine fonts-3270 fonts-dseg
"""
FONT_PACKAGES = tuple(_FONTS.split())
PHOTO_PACKAGES = ["gnome-backgrounds", "mate-backgrounds", "mypaint-data-extras",
                  "plasma-workspace-wallpapers"]


def main(argv: list[str] | None = None) -> int:
    registry = "--no-registry" not in (sys.argv[1:] if argv is None else argv)
    if shutil.which("apt-get") is None:
        print("setup: needs Debian's apt-get (install the fonts another way and re-run)",
              file=sys.stderr)
        return 2
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run([*sudo, "apt-get", "install", "-y", "-q", "--no-install-recommends",
                    *FONT_PACKAGES, *PHOTO_PACKAGES], check=True, env=env)
    if registry:
        from vision.train.fontsource import DEST, fetch_all

        if sudo:  # the folder is the user's: the fonts are fetched without root
            subprocess.run([*sudo, "install", "-d", "-o", str(os.getuid()), str(DEST)],
                           check=True)
        written, failed = fetch_all()
        for why in failed:
            print(f"setup: {why}", file=sys.stderr)
        print(f"setup: {written} font files fetched from the npm registry into {DEST}"
              f"{f' ({len(failed)} families failed)' if failed else ''}")
    from vision.sim.fonts import summary
    from vision.sim.textures import photos

    for split, n in summary().items():
        print(f"setup: {split} fonts: {n['fonts']} in {n['groups']} design groups "
              f"({n['text_groups']} text faces)")
    print(f"setup: photographs: {len(photos('train'))} train, {len(photos('test'))} test")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
