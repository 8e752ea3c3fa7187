# Copyright: realtime.virt contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Read a fleet report's index.html with lxml and print what it shows, as JSON.

The integration target rt_validate_fleet_report and the rt_validate molecule
scenario compare this with the JSON files the hosts wrote, so the page is
checked against the measurements, not against the code that drew it.
"""
import json
import sys

import lxml.html

root = lxml.html.parse(sys.argv[1]).getroot()
print(json.dumps({
    "rows": [row.get("data-host") for row in root.xpath('//table[@class="fleet"]/tbody/tr')],
    "sections": root.xpath("//section/@id"),
    "links": root.xpath('//table[@class="fleet"]//a/@href'),
    "histograms": [{"subject": svg.get("data-subject"),
                    "bars": [[int(b.get("data-us")), int(b.get("data-count"))] for b in svg.xpath('.//*[@class="bar"]')],
                    "thresholds": [int(x) for x in svg.xpath('.//*[@class="threshold"]/@data-us')]}
                   for svg in root.xpath('//*[@class="histogram"]')],
    "overlays": [svg.xpath(".//polyline/@data-subject") for svg in root.xpath('//*[@class="overlay"]')],
    # what the fleet table says of each guest's tuning, beside its latency
    "tunings": [{"tuned": span.get("data-tuned"), "text": span.text_content()}
                for span in root.xpath('//table[@class="fleet"]//*[@class="tuning"]')],
    "scripts": len(root.xpath("//script")),
}))
