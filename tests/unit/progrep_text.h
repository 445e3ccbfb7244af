/*
 * progrep_text.h — progrep records as C string literals for the feedback
 * unit tests (' stands for ", as dpt_progreps_parse() reads them): one TU
 * 0xab of file t.c, its functions (FN: version 2, FN1: version 1, an older
 * plugin without use/store items), call records, parameters and a loop.
 * Part of deepprof's tests. MIT licence.
 */
#ifndef DPT_PROGREP_TEXT_H
#define DPT_PROGREP_TEXT_H

#define TU(nps, ncss) "{'progrep':2,'record':'tu','tu':'00000000000000ab','file':'t.c','n_ps':" \
	#nps ",'n_css':" #ncss ",'abi':2}\n"
#define FN(ps, name, first, n, params, body, calls) "{'progrep':2,'record':'fn'," \
	"'tu':'00000000000000ab','ps':" #ps ",'fn':'" name "','file':'t.c','line':1,'end_line':2," \
	"'checksum':'0000000000000000','public':true,'first_site':" #first ",'n_sites':" #n "," \
	"'backedges':0,'params':[" params "],'body':" body ",'unplaced':[],'calls':[" calls "]}\n"
/* FN as an older plugin wrote it: version 1, no use or store items */
#define FN1(ps, name, first, n, params, body, calls) "{'progrep':1,'record':'fn'," \
	"'tu':'00000000000000ab','ps':" #ps ",'fn':'" name "','file':'t.c','line':1,'end_line':2," \
	"'checksum':'0000000000000000','public':true,'first_site':" #first ",'n_sites':" #n "," \
	"'backedges':0,'params':[" params "],'body':" body ",'unplaced':[],'calls':[" calls "]}\n"
#define CALL(s, callee, eff, args, result) "{'site':" #s ",'id':'00000000000000ab:" #s "'," \
	"'callee':'" callee "','kind':'normal','line':5,'col':3,'effects':'" eff "'," \
	"'args':[" args "],'result':" result "}"
#define INT(n) "{'name':'" n "','type':'int','pointer':false}"
#define PTR(n) "{'name':'" n "','type':'long int *','pointer':true}"
#define LOOP "{'loop':{'line':3,'body':[]}}"

#endif
