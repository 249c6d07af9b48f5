# EXPECTED: no more hidden capstone points than the same file with an empty table (lengthless_capstone_stub.py);
# observed 82, 85, 92 hidden points against the stub's 0 on seeds fresh-1..3 (issue 24's fifth attacker trial,
# 2026-12-06): one grading of the reference recorded with the draw off, each input keyed by [registry, parsed raw call]
# with every word as 'w' and every number as '0', up to three pool-word keys or fields dropped on the live side, then
# coarser keys; several recorded cases under one key vote; the recorded observation is translated by token position.
# With 80 more recordings on drawn seeds: 99, 98, 102. A coarse shape classifier, not an exact table: what beats it is
# a valid call of the same coarse shape that must be dispatched beside each refused one (see docs/threat-model.md).
# With siblings (grader/judging/siblings.py, the same call on a registry that flips its verdict): 53, 58, 53; with the
# valid-call canary made again from its kind as well: 5, 5, 5; and the valid-call cases: 1, 2, 2; with the fix's
# sibling on the case's own registry, answered by a fix short of a required field: 0, 0, 0.
import itertools, json, re
TOKEN = re.compile(r"[^\W\d_]+|\d+")
WORDS_ONLY = re.compile(r"[^\W\d_]+")

def _tname(t):
    return t if isinstance(t, str) else getattr(t, "__name__", str(t))

def _ptools(tools):
    out = {}
    try:
        for name, spec in tools.items():
            out[str(name)] = {part: {str(f): _tname(t) for f, t in (spec.get(part) or {}).items()} for part in ("required", "optional")}
    except Exception:
        return {}
    return out

def _praw(raw):
    if isinstance(raw, str):
        s = raw.strip()
        if s[:1] in ("{", "[") and len(s) < 20000:
            try:
                v = json.loads(s)
                if isinstance(v, dict) and isinstance(v.get("arguments"), str):
                    a = v["arguments"].strip()
                    if a[:1] == "{":
                        try:
                            v = dict(v); v["arguments"] = {"__jsonstr": json.loads(a)}
                        except (ValueError, RecursionError):
                            pass
                _drop(v, set(), False)
                return {"__json": v}
            except (ValueError, RecursionError):
                return raw
        return raw
    return {"__type": type(raw).__name__, "v": raw if isinstance(raw, (int, float, bool, type(None))) else repr(raw)[:2000]}

def _keys(v, found):
    if isinstance(v, dict):
        for k, x in v.items():
            found.append(k); _keys(x, found)
    elif isinstance(v, list):
        for x in v: _keys(x, found)
    return found

def _drop(v, drop, sort):
    if isinstance(v, dict):
        items = [(k, _drop(x, drop, sort)) for k, x in v.items() if k not in drop]
        return dict(items)
    if isinstance(v, list):
        return [_drop(x, drop, sort) for x in v]
    return v

def _sk(text):
    return TOKEN.sub(lambda m: "0" if m.group()[0].isdigit() else "w", text)

def _toks(text):
    return TOKEN.findall(text)

def readings(tools, raw, pool, most=3):
    """(level, key, tokens): most specific first."""
    pt, pr = _ptools(tools), _praw(raw)
    fields = []
    for spec in pt.values():
        for part in spec.values():
            fields += list(part)
    cands = [k for k in dict.fromkeys(_keys(pr, []) + fields) if isinstance(k, str) and k.lower() in pool]
    seen = set()
    for count in range(min(most, len(cands)) + 1):
        for drop in itertools.combinations(cands, count):
            d = set(drop)
            text = json.dumps([_drop(pt, d, False), _drop(pr, d, False)], ensure_ascii=False)
            if text in seen: continue
            seen.add(text)
            yield "a%d" % count, _sk(text), _toks(text)
    # coarse: every pool-named key dropped, registry reduced to tool names and field counts per type
    d = set(cands)
    coarse = json.dumps([{n: sorted(set(list(s["required"].values()) + list(s["optional"].values()))) for n, s in pt.items()}, _drop(pr, d, False)], ensure_ascii=False)
    yield "c", _sk(coarse), _toks(coarse)
    coarse2 = json.dumps([list(pt), _drop(pr, d, False)], ensure_ascii=False)
    yield "d", _sk(coarse2), _toks(coarse2)

import base64 as _b64, collections as _co, zlib as _zl
TABLE = json.loads(_zl.decompress(_b64.b85decode('c-rk<ZF8$Qmi{YjzNEX#<3R$yrKh%Lt9NE=XM205x_kC5PPsAQgt@lKfPLNRJNfS`0k*+8js-{voTFQHV?YQUJxAv`2<hm{jq{KDFVmadY&X5RGx)Fk-{jA0&j3%qvJ33YY<7BWmXrqFW#rHAOL@4tyZ>^t2|vZ`$IYX^x#`{Pd}s6IN9<SR|9u-ozQ=yL!RCeii8uUw_`C_iwX<YDx9eaNA1?eY4%h6@+FAMhoWJ&xOQHLT{e6xCm!Ec`$L-2rC%0wA{^;=A{uIX3t!es`T)DyO*^dJDs0VgqoL2LvFkBk0vs@aH|2N;=_}(|hI@~-3>qjGU)_voT!7qlh_Sj`!g}dqcH^z4TX&vs?#)jWJO{z9aDmF{1HNE+U<$es}jnCvwa>aKBYmeE!HQ4jLAbxf>?h|W}yM?oiecnRxcDcE^`@*DjHd|J`n|+;F<^3oMBX&wlg&DZ4ee)W2pP>HGi0Ys|v{E0uf85_^`tZ<%8lVESOabaq&h+NXbjlB>$@yto(lk+v<M}svn6k;`nM|Kf%K;SWFLm{V6`kG^#5}L@*;xjj@uwgE{QaE~Yz&6Lb8O6gUIagBI2*%#aw3P79vSwqaW$!1Uk0-tpq!{>P;H_uj8w>t7w=%~cfN!1%&s3iv)ngi;F@&7ig}NQ6?G@<BRcyCDt=D!i~fcpeMe2#qv@#Q5?rb?J~-@wH~j`L0PT0qV;H~hpG$3e>Mq=|JC^LHlop$5bdVf|+w~^mXa4wutXGo#;~2(S@!Yv*WraK6yEAwVdPZ7*T`wUes;C*L?}C++D`n+x*xQmK<s8w;U@-SAr83XMq$-iW3fA5^ss9{1pWYQ)#w#eV$!uSb*1s^9tZjwiGf6i4nhY^oSDn`NYD^~DLA`cRXxLbi`MVCohbB*t$-4q$hh|QfnbY%eWXkV1cEx}Hr1P6eW{SQ`vL<)&rsbw}!Tx&*x4bw%dA75DNnqjNF@Uv>@(emQzBU*t`8rTdpHNBKtt4_r(yQqPYDHVMqAp|o{PWLDDRwoKiQUZ#k<M0oC#aJ4t+ncs*)3HvFOX1EDuTFc!Tpq1nt~gFZW!p=FE_Wl+dJcy6>!@#lHdC?w+wULZ!0?WfpkkB$fdWAIzS_O&7k+@b)XJt2$yQO>Kb3k_7&MvntLo_5V5)IdZq8TGPZBy&S3S|gF0^(`p3k@@Ax5HX&%!WbZks(pl&!^q0*rywN{fPj+rY|AXJ?es*bEl-S-blW@yWTbhV8)tSt;DZHjQtOW@V#D#q*I@AtW!2h~dCWhY->_2F8l(h6qgwh)V2vs7&2xzt*if>U5GYB;K`VzvD+x_E9H;zboi<x{47A3*KuzAP(P|Gr%=QJ>r418_w{EUIJi-W$K@Qg`eQYJCgT@!C3mIu>zxRXZxRDy2qsuC2~>eIir3Ph?YsR1FK8Vl0dRNT!I3?T#(3*^1@91W31MYCdtJX)Dg&5C;%ZQEl%^fPpZy%LwvMpVR#}&*|Y4==2Eb^zga#G~c`T?tk!U<qC|fu9=T$hToXsmZ%WwMLUR~CF+2R&>bqueGn81Ou`<iJ$xQ&jWSx1uMUWDODIA<v<Pa4&Ap%wG-K=)tISE5n{);Pe`f0=@|3Bn$^e@GmK68j$~*Uo`0TN>?4hlPs#INd1$dPk>}nOnadJJY@G&CUEwA`(<B(jekmkU;|M3!hRum^~Ok8hnTc&Oi|HXA9N0E${Ik!DBv~|n)y%R*?JP?)ghEl#I&)odBXDoxqrw!BJV11)phDFGl&WSh8GVA`Sr44pH^&h&6!H8PARpUP$Z_ChC)Bz^L(Rf0J3z?CYYsFSZ$4#~4hTfPKZ)_8!yRTKV0{_M8?r%1Z68*m*R8sR+Xun8BrN-h$@3y=iXBqO%xcQa+_t&4kl|W)y=|=_|I*vu%OKxgc-RsW!%&m2V(YqD*Zad(z)(VPWF$_NXsH%Nb^iK77r|6gJ@k`Mot?!X`#ux3L7urGpvxS}~`kW#@XREzU`QOTQeJF28+gk59$=`!e>aaM%R0^icZ-bIv1re80xX8Af&6vtYK;|pVTMe>E1<TpU8fFn8DFw+TdsxW?A_k=}kZt=+Jr1Kyn}Xh^tp@&b^~za8Q=+?wAe95@l6^F#IE#o%IaFj@%+ruRn&zZ8`uV~!maLgutqo#TEN4vXLXG$-!S9lttqU6hCK<2>7X=yRcc-suka_FyvG-tkW+>--pKq4>zhU(0{T=OPjG*xIGhUU}kM)$OskGU|6_f)J*M@kF$v72&Mu;^)tZ*cE_U_F}89}e(;012m9S4yrRvrYd13aRs63r6h$8|tN_|(8B+gR^3S!W)E8NWM}`R<@@$zl?=xgjw4vsw*?NCnH$;!Y+HV!x5tZ?H4S>I|2>ik%!c0<~YF_M_g{*L(ScszwV!Ej7F<#}Ha_(UQ@Xa+NJRYHFwo!hn!Uh4k{Us3CumB4Q{NLp2}7rmeBw>!ug9rj0*ccVtnkcy+6M`<kk?;|Q))aK%1zO;uTRL{lo73M_kHqg%e%u3ern*5?Zxs?hI}Q&6$irOka`w%3k`Yd~Cp1N!oudW2X5#5IVaXS{#o$xIixnA7Pn<qAFf2uZbri;*)c@Hp+>luws&Qh>8`qE+$sr*O-!2Wx(P6|A=#|8STqZRyPY<)O65e`Zx-KjwTLIjcjs{_IEmgu9I*f9<{$AL6XSZBpW587B9|?5XZCqS}Ua=cIyfq{t>X`70+_7R%g(yjnq=R>K3^;K_G9KjN*xzaF0k$jB9zyN6%=HC+2=C)MQ}GH-^mmK^2V(K2hU&}WaE9Z@^1&mX(PiDx>Jzj>mPG^r$O=b8OKP#Dc7Md~)s5QmF=tAuCH3G8X%&iC#NUbUW)-qSM@EPF-<qRikD=ENNg7uE!ow`<CqH)|~4It+jH6{|1@@0<ds6;P_fu=%xFxxPo8^RGcUFX2A#UF^4CKX<+SjStFv45(XWy&>&9X$G)o9C|@kMnT0hP0chrzq#o<VOBfDyB%ye<f3Z;6zwx)pL2s2J>&9^2W9rOfE%bRC+hJ|q`xki!^Y)CYt{lh&=^6+2p(Qjzt>!y7XplkD>Wjnx`oD#&Yt*yL3k@H@2x+P0fQY^Z7-=|T<!VT8=IumlHWQr9uW5OEu{|dQndYMMYkN2owL#f>s`fUH{DY5Vrc9%PVi0^S766%sI`;j7ByS@P#(NvbmNVEsXp~Wi0oufe@BIv-Gnj??_xYLE$T?#&gjE-yRvaycJh`eU_X=Bc+K}P>{}Q6mNNgjl3!Tglh&buI5|(}<UE{`*V+jy0^`%8fyrJ_C0X8#zYg|})rsBKGakc@ad?mx8+^HD-J7w}v3V+}j3t#(>F4=oKguKaC9y|;MwdTRtOa^Eo%U|hl}|?mBpR5cNVp&Cv@Y*ft8+e1+0NKGj|Ua>t%9obdrB)*!(I^T!-+n;`-RQPh4}s)Bmup%qn$rbpm8GiiMOtk1b^G4rl2+|gGNvpNSy*nOqa~5=c0evCjWAW{^d3Kmoh(NylWfw4{D#$PHNV1M{{@mjwWhqPE(unICri0I8iZjih*vDE;nh1LvYs+&LN8oeP~Kko@q(eG#&ac!^nU1qgI%fOEv49ceK0S#qp@1=M+?>Q?zUC>R{A|bNYb3khUpSeT;y1HNmaSv*8ESb>dOqY^QbM73<!_tNxV-3qlozR8;A7tbV)WrJzPY8i5{>zK>`oPSU#esIcmK@bqRhy=kX$Nvqbu?`LL*Cu*URR#sBApUzBuleJJMD(eLLMf$&*!RtlQOKPW=1d5usIR{y@@#%x8fB5SUc~SrR<G;!?MCn71{e8V%&08{JeX(jC{>E0N>$c0ELUmT6&dq$0tE7H1JulQACE9~tna0tozIj0)^v$~On-Mcv8`1)UG-Y+^546523RSO*<6O17a#wvdRPRdat$2j2zB=mh-B6n<X%l*J8W-;Ue%D9OtxMk?3l%EF8{{=|_{CqG)$=knU8`gDo&tHcXA>Sfwi89p%f4Sbzt5iDXV2DZe}t>p#f5#9dTrZ2P@*QQ&}796|Eg)8+^?9ZI4Tqe-7sBl*!`hjJ)9Bh{sDcmEA`2aRgyQ`A}#RP`P1mkY43N8q=ht2xDcpa=X^3LUHF<DG*s(zYOT^ilcR?1@zzj_&S?>PYuc7B9;a{Obp30buAgfyiLnaPGLIdb1K~Ss{m}|9R7~!UV5rqvv|8@2%+hyUZfpnN>NW1(lHN)*)$v6vXu5?>cbAbyb0)={DP8_u&HQLx?u6Du+<NE(3Om1)&aZm!<}d2PL6;5)Dr3t{k=<_g&uQH@JW0js?Kk|TWFTP#sX9nycc&G{22rVwN>dh7c{u&r0hQ${#XDh(HEYGCn#r-K)dIC6h%!N}YH`bAhp5R!4L^cu-SP!LdbNC`m#l=sNB3X(I+UNjRq)=t`L*x{dZ=LwUXagK4L@#mb(^B^Uf2ys9hSMRm~Xj@@nSqe?P#-hEJB8ulRW#Z+a$@xaeZM%gzL-xsob1I{v(s!XVp(~#CJwcqk0CzdzPTxGcs^yduaH@wKq$ew3pnKw1+N3*_3?U+(N698)qT&*J1w7ZH1<t4cpja$PnFR2<2PX>DaIi4RS4m-0%*9`t7NFfzcdx&>S|kS9t4{gG)Q(()A23YW9=KIZLJNCDoZFBFgNp!}-K=27@7Dp&tutWX)}7WFZ#%v2a~`KK2&aFIs>F_57i;U@iU5M=`-KSki_^$_?-(u5jJajH*p~sOrJyJB~$N%WP)a$9?gphqg@jko1u`K8Bz${`BLYzt2`QYWuW&u0HkVa+C!TktvBx*$EnD0YNB)p-^oQO^p_inrQdR*gaFWq5Gf!lr?XrJbU&*TfBkUyl-<Pck8omJZJVH=0lTM4_hBw|J!ZshRF6M=S5VrY1mbycNJ{X_BH9pH7OO=PgJucsPGaM9vibAjrnoyhU&MlEU&gVE*wfP?PLl;hB&BVW})WChF5CZaB-r<1@yR7@j4cJ9RXPRn<#J<&Ci@r-yJTf)6vx`o!%3s)vBO;TDs0nRa)Kh$fWvXT_dMn@dm$Q`&Cxy;HMMa3%%U7U6#nW%fWR&+-|w8(3NH)mv(LI*;YV<WUY;?`$*Rxg02Vp`npF(3v)5)B4zhY+~Qul#waE3zWD)mjaLj1(s!Hol~NuG7AaiYemwi8dwf~tn=biyRkObzR+<+h4~%Wkw_Wc#_OhuKHMhI_ooH5<ruPad4X@q}DKw*ltgV0V?&Q+@o3HYlev_Rym8=CpKG(Uax8Pp3y_^5xGh?D4j8afZZ4<E%9#gOpqlvee49rQFx6@Y9tFB<5?N)1AGdo->(G2ZdU$+`qbTc$gX)|`lbnA^Rm;Jw>LmbfW_MEo=n{G{W;YL9c{b;%!jz(m<wS7m`oEp;_n<kxGot)TKUimvWvrV%?D4yO{0l<dmw`p#F<W_y$id@=dE>+Vz9d|G=iQh@Oygqtt0%Nrd*gD2*qDhg|8YeYmvaW5)rXYf;J)V=r(CgAPt?SrkM>&>CNU9YZVyJDprh-&Mgj;j<^D2nr<a%avPPeU=8)JR$d2~T2HkojfjfaGeN4}3Pj~<t2haOMowxK=Q##&<NcGn!5iw^BIxVw_=1)D)sh5NH>$97;1G@wpKm$P+!qr^U(4@TC=CP?g!5<Aj)2k2aZp&B{E#eBZ+ZY}2S&N8-g&?M5cE>c$BM#v*=i)LctLg}kqWyM^{D1m3~JZEbx^XoJu1tm0Y(+A!jf&nu8{71ea++&#Rc$-vXdUIw&TvoZlj<{Tso{^T>Gm;APt>qHTr4Cz-eajwB?CXiXVs?5-H|n-3-PRE;#?-m^992n`DxveH%X!-YUCYexhlNgCSDiNAKl4p#CBdxLVfd?mVvj6&)`&m*j4k5zIb(&=T8SE>;uDig$49cJVl_>lXx+$L8SFWO@nkse;Htm6UA$xd9ICxKwO8r#)mGC+T|Lw?bz0WI9+J?j#cNx(2tO7><mpaQB#b1{w$sCfYSrFWuM*6Noiyw!>|a(1G6YKkSWTJT{1}dk&jO{DVKgvVB8P&csX{V$0&MdABc;wUwdRZQz;`5>&5|%-+aKG$s@W^q<k;9acG#j1zc^NS1(C3=(}=n1W)`OHciXs6Bv2)}yQ!lZYf<Afk)CDiOxm1sr^qgB-}i?D+WAQYR~!Ew?c_x}*=1<2#&$F~Nu#Yh0bp0X+*S1<b2UA!-tgJ<=F4=-52wlbX<E`W>2=5R`8>PVSJq$UzHpTtK&^=vD?Ys?h<RS)v$G7mWXtC}BiI=6CVY;KxzCG8_JMXbhWq414l6w}>|x{GtZseZ8<<m~0ElW+s1}F(lz@pas)teeHxPZFJG!())V6%rB}1?7rwqwoEjrqSImd4ocwEFqm^gZn^u-)a$i4{tr8hH8^Hwk;5zR<NGg_h<ZPAPa(TqdUj3d#EW6_Kg!Hh%{86t`d5k-cGB11%xA)?3-QDlfHGDH*^B8m(ZMTUwZLq(CHqR3EDWT+@IR1_I1iVPJ+hKeF%i6Uc(B4ddnV~HYTi6Uc(B4ddnV~HYTi6Uc(B4djpV~ZkViy~u-B4djpV~ZkViy~v6AY**R+>o{FFqZ$iP2*bVHK5mkUITg!=ry3%fL=qZy@qOYBBf1#ytYvr9Irvo3q3FNywLMP&kH>-^t^Dq2E7LK8qjM%uK~RV^cv7>kTYJRU?$YLh5oANM8R|A_IIrOO%%9w$4mBcSNQl2mnwZE54sZhk3qcgISl+_d}rhbe_G_BrK4GLm%bqovg=uTMqK4yhX|_dO4zyz`-i~ChRWRnAyd;Kuw9jOg~p=#v?P!ZX)3CT&R|ZLYNpbOLmX<YG%*pJX2983$;m2ZJcUb-|8-JS!Z|Mz(P)Rsny!Chz(tJLUyOwlEP0gDZ^QMPJ%_dQACf8{RIP>Tr(orW+YRE>a-4qHuKAjM#HnTkI(y_Vd~b-Vj;fA0A<HAnH;&Vw35*6(Sz|D;=cehH*mULRMLR>sCv+q$wz0}^#%Mh*jX+`JHa)C_Ev|g52%A{1Yl!Wy(ci<y*ZBU5<1eU`sFX;D*!~@-!>b+B_^1OFl{W%Xv-b~n>`NmP*sRTsNnl$m9F4%n)#Z3$%WHADu-Ub|=HaLVDk3T(5+1gE>k02_M;AWcxI)u=4IO?Ka@=FWgh^|9z=R2t*3^QH_?XA~%O-MUt%yGOH`BCSzSfwP6z;f-${*Y_()#LJ3N2hgxm)g`AA|`L`azg5VJhzjp>reOxv9JJEc!H<FriO_2@|IBJ`H*^GQF7^U$%P2`!^o$d#{+2OeG6F`v^(3gNu>-t<Nl6F%=AM#z_Ir(n+?g%H94HZu#|K&9AS5^>*VQ4s)d~ow>g}lot8VtSaosoPR-ObqLp={fM7%w^8J;-IwA+oK?6@N?a_%<i40a)%6eMZJ5F)6?`KFS8d)YR!*=imbnRewSqXUh6lF6lka$b#9P4&+|9va@aZkZ!gBZUi@%0z|Mb<V*n)XelQrQ86DCZUFk!-k2@@tvm@r|&gb5QSOv+P!9Mh~j<p17c{6GBS`o0$@d6vN{*ce~gmT4MZ@EC03uZ=|*8NqtvKl;&rRe3s48VBL}ju*A{jVC8I2Ik?eZ;Wm18}UorkNwRoShp(rKqCU5ojsZxhQH4b-)Dc$UN3*+Lo<W;(8zo?pq`Gury0P(^}|4VRz_izJR9uJ2FKGZg^_O@*v5nj6DCZUFk!-k2@@tvm@r|&gsE)_2e!LEu$@~u*fTEwcxYxIx-bF^jyIo-Fc(IXaU2;FCQO(xVZww76DCZUFk!-k2@|IFBpgTX{y6g4m@PB27~TYr@feTs7?1H7kMS6f@feTs7?1H7kMS6f@wg?&h1k99;LG%8Ham^6JIlxI<@t(J8+U=nhcy@BX`I_d;4k@K(=-nY;E(4BaE=1!Ea03CoEre=hQPTIaBd8oo4h?o067RC2La?DfE)yng8*_6Kn?=PK>#@jAO{8Hpnx0{kb?qpP(Tg}$Uy-)C?E#~<e-2Y79fWO$YB9;Sb!WBAcqCWVF7YjfE*SehXu%C19I4a95x__4ai{wa@c?zHXw%$$YBF=*nk`ZK#l<*#{iIH0LU=_<QM>Q3;;O>fE)urjsYOY5RhXC$T0-u7y@z(0Xc?%978~kAt1*PkYfnQF#_Zm0dkB0IYxjSBS4N3Ajb%hV+6=C0^}G0a*P2v#(*4SK#nmW#~6@f49GDC<QM~Ti~%{ufE*J*jtL;g1dw9_$T0!rm;iE2068Xr91}o}$y+%Hz~=<ua{}-=0r;E%d`<v9Cjg%lfX@lQ=LFz$0`NHj_?!TIP5?e90G|_p&k4Zi1mJT5@HqkaoB(`I06r%GpA&%33BczB;Bx}-IRW^b0DMjWJ|_U56M)YNz~=<ua{}-=0r;E%d`<v9Cjg%lfX@lQ=LFz$0`NHj_?!TIP5?e90G|_p&k4Zi1mJT5@HqkaoB(`I06r%GpA&%33BczB;Bx}-IRW^b0DMjWJ|_U56M)YNz~=<ua{}-=0r;E%d`<v9Cjg%lfX@lQ=LFz$0`NHj_?!TIP5?e90G|_p&k4Zi1mJT5@HqkaoB(`I06r%GpA&%33BczB;Bx}-IRW^b0DMjWJ|_U56M)YNz~=<ua{}-=0r;E(d`<yArvRT*fX^ww=M>;`3h+4v_?!ZKP60lr0H0HU&ndv?6yS3T@HqweoC17K0Y0YypHqO(DZu9x;ByM_IR*Hf0(?#ZKBoYmQ-IGYz~>a;a|-Y|1^Ao-d`<yArvRT*fX^ww=M>;`3h+4v_?!ZKP60lr0H0HU&ndv?6yS3T@HqweoC17K0Y0YypHqO(DZu9x;ByM_IR*Hf0(?#ZKBoYmQ-IGYz~>a;a|-Y|1^Ao-d`<yArvRT*fX^ww=M>;`3h+4v_?!ZKP60lr0H0HU&ndv?6yS3T@HqweoC17K0Y0YypHqO(DZu9x;ByM_IR*Hf0(?#ZKBoYmQ-IGYz~>a;a|-Y|1^Ao-d`<yArvRVR9G~ZQRQp>Tu8&~?iX-&LFab5^A+LfsPOfJ|{>MEKZ<FfHOw+s-%t%BtQqhc-XhvH!<3KdyP&DI6G~-w_<3unc5k-cGB11%xA)?3-QDlfHGDH*^B8m(VMTUqXLq(CHqR3EDWT+@IR1_I1iVPJ+hKeFXMUkPR$XKGtSfa>SqR3dH$XKGtSfa>SqR3dH$XKGtSfa?-qR7~y$k?LD*rLeTqR7~y$k?LD*eA#sUu~l8+I1Mqf8F?E9`qW}Ye267y$19e&}%@ip{riQ`zvCh`Gtkkf^!Xz=Z)#s8=Gcw>-&)va}yBVU<2+^zg-7Oki_&tajfLDxO`B>th~QCQIH=zIq{%aE5Qy__=yK_<hu>s@yE>ab$0#WndQDAF7;h&GCIE}le(5`eRJd@c|Is>g%-<Sqrc@g+`4pQsmzCrg3rla2aikD<B+$^T;|!Xf1)F~Tv<;mh}A!<R9xVPSNRqx@||@4^wKZh&Xnp2y8UzD@2cFu-q9ZY<F;ixf1U)Dbt3nvSkB+Kesrw(%K7DHuhQ{x>$LrSp8pI#mA@(Ob-qx1b|$@nb+P!kquSX)?G<}?aJ+XL`-!{}dxpO}>8bqAwD4o@IPGY`bKob{&x&0zisMg=fzHoMU-=t9dZ+hSdMDnlKdr;v+TgWgij{~q;|DWV(f(ej>CHFnrbmXA&k37fkME3}>F60;b7ou(dIpC$`^j*frRemMnk7Z^=N{U~SZ(8tG4~B839Dg*b6)iunWoJ5s53Da!xFm<mfv6S{Dn3d1gMv%=ZYP<u$$mX=PYbjSm;+-$AQ=!`%IVnO!+|OEuz4@t{1iZM6rv?jQV>$`it&sUHA3Qc+(Nz_V45!2VGJPF6nzOi$`;$(1;W)L$^)GVmMh4$0O}>7o~MTZ7v|{s45+m<DN-0@lsqa)E8Cyg6>cmcW8R^J9hIwi)_rq|L6IpJA?n8?k`Obmy4&8tgrmn>+gQcA988)CiI@<cu!fbtP}x*vpzL7>8X4<3S;XA8zbI?&oMI+yokg~I2*%#V()6K^vE!!T8p_$#*^V>qR#_rQ=e<lVM4VOSIa7!>$S;{SM-rkMZ{GE{TvBjE#Hm6g#L-%(H(W`XgGYgQv0Sg_dL2Flxsa|5Nc3)4H^##9glp!bsus|*~k_Sz+Imi!A6$Y)6kES>qkv*lIeixO10}l8LhoPQj<fvmPM$yV34<%422ZEl^>+KtP9d+>y$TH%0K*c85g8c$-@yRpCyq`b@AyUWIFF8wHH{XAmiIC?{WL5%KbDe)c_3V6U!M4hB)Sds@XEtv_{t4c19MeCaPx3RMU0s`Pf^a)kM{7n`%<eA3806>n`UPYkvJkO{?WPB6?l+t`NO0J0OT&7dRS6-IR^G8SG!7HYSe3X>r<5Dw{V4``R8M2-dl&fTz_TDEv&F)^C<HiR3u}V|zGoEvF-1d4+zXjcZV~@~Wlc(^_4FD&?CS!kmX0eTL?I2K;*0MZe)qMdwZ&xC*;IYp+?>T5@~-(6#1si*(j^X!$4~s@SQDHSI%)8d%MK#I?eWzJy#~Vu!9m+a}JgxAhkhHafk1I3J9xkxkmn`MXZeo9(zNps`jsMe}eLhl$%~!%voo?^|~uYr3^@n-qC_n03u+&hG0OkKx7`NbS<Zbjh50ZfE9bl;{|(H2PPoJ4gqz7ry0#Z`|MRZhHp%@8K1f!?ltTf+TM3zF+?kvU@tT`o<-$XHU#wyI06n?h$RJf@@M5HB0Gg7(wL=?5+$zWbksK4uAgn=OiB1F0Z4dB4!;kq`|WGKg|7)G)xxzf5#q%0S}uEco-)8aj$cs=fAxaNsJfxYw&!$o0z6al2WcGa2T;Xe?GBoogoj~*7r07K1B5tQO_!&58G$hYX(3>RS{7Y^na8MXdlk^Pm1s3ye7@V8pXo$uQ%DLGsfX$ATvA50pJ(?WgKi(#_{6MyUnk=I9!@0b?Ni^@r4)ciQ&%o?viB}J)SLo?=~*LncJkAp2=W7@tpahBLnYJI<U4;7}W6==(ys!T#_h8%AgVITMP6J-8uE{+!<lftGh0*PQ^Oe61GM1dgbxLrskk)j+cb4b|wDT^=e~NE|L_p-9k_4dNl)`8I`kZ`2WA%{g!ut<B;y`cyYSBH+zQpkZoOq6L7TnG)0;7wjvXHv*P2`4nOhoR^)Xuh@Hm8l`xFm=y!UHj-6q<=isaDQQBM=RJx{S_sBQGQalt?0Q5lWcp&$uwJ#n&pexa&D{=DPkR8gHw|Drg4R%b9IyWdB_<q0NOW!8auAFEMJNf!5cQkZtjt8bWZ-diNvlBGW{vTFP>hOGRQ&*3$KP+aIsriJ%%6$j;&F*mO-h6m7U=%0l&bM9)bIxEpt8kli#>FypHm6qpIX-se=WrRgFUKxg^vq74kax`vkNEfXB3P%2kQGhL+S{V=?ES;z`su^=)0rG2d7^Kux2rjWtqSZ+vRSU>4uO|!;w&cbgl_8@)yJC4!I=TFM=-++@yX$nv!oB|fWRitHMt%`X!gw`V!O6lLPC>eriX$LY9JSRUV7gYM1J8cV;K7V^I1jxC<-HXN>WhXj85U0yg4mXVPi{biYz0G&{u%Is`)O7F{0TBnk`@k_OmnOz&!%BnnfCL4#u7{@oYL*Z_9<SRb|ev5iBXzR|pksf2jTS*vnl3yN(Si@J~Ei-=jX7H(gd+)Q(vo{Hi?avN$86AIGcya*P1ka?kou6eHXv14W(7kUpuOJ*SC5IA>@(qXkv&XN#jP-Pisw@X7GJ#c@JJE+eA-^WK+S$i=oh<bYNXWbr25@=A)Mz&A%tXv{;e1UZ7M$5}TEGy=?d#0;3Ba~V$Eql<HS-)5+MS&Sav*u%etd`??3(2(<+@^e<x4CGP<dMSf-DT93}!{Abe;iU|tOBu$OGE6RHAeUN_Txv;jsU^v!mL!*2l3Z#@a;YWBrIsX@T9RC9NqVUz>G_sS`J1s;9PTG|ru_VFcE+n`voH?aIML?p^^9oG*0|tjWRpw}^*cHma`%5uHgry(0@E{V$eGDrnUlXH`%AOGR`%D<{tmLg!|d-U`#aA5PSU?5E01L5k*qwDl}EDjNLC)n$|G5MBrA_(<<YD>%F5&ZMk>!N!!$d`pyT^jCm8jN42-IiU5igBycGM^+#L)iUh$<RA%^>h982KA@nHW_SD2>%a2!w1|E$kqIljs<Q;vgjY?I@a9E0SzBF73j`=7J)Ih&rd-Z?v+v&cEyo3pYxdz!PHIUAX?hB>=;*210Gvc1(h*eA3^*Jz3MFU{tDSwyFQ0P8&Ri+#{SpoKsSQPM)39l)Q7uT5?HakY42`vT0qc~ayRoq1yrpO;~3AEI>oh}?Ti?wpq!4?moKjC_9$U6?PoK6KuFalrg5=aE?w2fFm)^UyZ%Lmc-LbYb_Dnlz}sFVOjLzk2x1mFI2ryacbzBWAO}!j{2jAO6x*G^odh_xE9g4x`K`EpKLD8Q--0n+sXXzd4_^{G0Q~mVa~U(DJ}T(w2X7Vc+sleP5vShn9bH<<RnPpPse++rqMzH)U*LcEU;=tXT>b%u4$Vyee%UjL+AVnMbq*EwTmajc5znWDAZ#Y18tVm*pMzG)%w1rF$B3k{wKMz?%}B%HPIOEPofrxcpt229&=s)sHH|G3_aTTcTT)5O^tnSE`rg?@P6|LYr`%u24;`@$cSN>D?mF6@~4W>2PR!&O4Dy(eEzhckej@okVmJJLM!^Qe5<C(4#?*20fZ?c{EjKAEF}@qXUBuOxGM3bX?GJLB|Chm+Np`YJ^5kE{JR``z8;#`D}Xj^;P;-;paDsJy`0jpznf}le>N8Z=%3exo2$TuforMnk8JV9ESfQjItBUFxl*E9<iS0Z;Y>wJIRjd*HS}r`XjO!llL}s)PywxSOvi1%ZLu#5V3NIX|uwwy>vqY-6nV4LdXXLxscno>$;{(RasdvED<0<fTUSbF<cOli-^>-l2!I}N%4cvD%eV^IJ6+H3i+dEH)&BmjB}|z^}Z*|MjT<R17q1iblK=3ZdGu5{eM^)8XW')).decode())
POOL = set(['accordion', 'accra', 'adelaide', 'albatross', 'alligator', 'almond', 'ankara', 'ant', 'anteater', 'antelope', 'anvil', 'apia', 'apricot', 'armadillo', 'artichoke', 'ash', 'asparagus', 'aspen', 'aswan', 'athens', 'avocado', 'badger', 'bagpipe', 'baku', 'banjo', 'barcelona', 'barracuda', 'barrel', 'basel', 'basil', 'basket', 'bean', 'beaver', 'beijing', 'belgrade', 'berlin', 'bern', 'birch', 'bison', 'blackberry', 'bogota', 'bonn', 'brasilia', 'bristol', 'bucket', 'budapest', 'buffalo', 'butterfly', 'cabbage', 'cadiz', 'cairo', 'canberra', 'candle', 'canyon', 'caracas', 'cardamom', 'carrot', 'cashew', 'cauliflower', 'cedar', 'celery', 'cello', 'chameleon', 'cheetah', 'cherry', 'chestnut', 'chinchilla', 'chisel', 'chisinau', 'clarinet', 'coconut', 'cod', 'compass', 'condor', 'cordoba', 'cormorant', 'corn', 'crab', 'cradle', 'cranberry', 'crocodile', 'cucumber', 'cumin', 'dakar', 'delft', 'delhi', 'dhaka', 'dill', 'doha', 'dolphin', 'dove', 'drum', 'dublin', 'dune', 'eagle', 'edinburgh', 'eel', 'eggplant', 'elderberry', 'elk', 'elm', 'emu', 'essen', 'estuary', 'falcon', 'faro', 'fennel', 'ferret', 'fig', 'finch', 'fjord', 'flamingo', 'flute', 'freetown', 'garlic', 'gazelle', 'gecko', 'genoa', 'gibbon', 'ginger', 'giraffe', 'glacier', 'glasgow', 'gnu', 'grape', 'grapefruit', 'graz', 'guadalajara', 'hammer', 'hamster', 'hanoi', 'harbour', 'hare', 'harmonica', 'harp', 'hedgehog', 'helsinki', 'heron', 'hobart', 'honolulu', 'hummingbird', 'hyena', 'iguana', 'istanbul', 'ivy', 'jaguar', 'jakarta', 'kale', 'kaliningrad', 'kampala', 'kazan', 'kettle', 'kiev', 'kingfisher', 'kinshasa', 'kiwi', 'koala', 'kobe', 'kyoto', 'ladder', 'lagoon', 'lantern', 'lark', 'leek', 'lemur', 'leopard', 'lettuce', 'lime', 'linz', 'lisbon', 'lobster', 'lome', 'luanda', 'lute', 'luxor', 'lychee', 'lynx', 'macadamia', 'madrid', 'mammoth', 'managua', 'mango', 'manila', 'maple', 'marseille', 'marsh', 'marten', 'meadow', 'melon', 'metz', 'milan', 'mink', 'minsk', 'mint', 'mole', 'mongoose', 'montreal', 'moose', 'moscow', 'moth', 'mulberry', 'muscat', 'nairobi', 'nectarine', 'newt', 'nightingale', 'oak', 'oboe', 'osprey', 'ouagadougou', 'owl', 'panther', 'parrot', 'parsley', 'peach', 'peacock', 'pear', 'pelican', 'penguin', 'pepper', 'persimmon', 'pheasant', 'pillow', 'pisa', 'pistachio', 'platypus', 'plum', 'pomegranate', 'porpoise', 'prairie', 'pretoria', 'puma', 'pumpkin', 'quarry', 'quince', 'rabat', 'raccoon', 'radish', 'ram', 'raven', 'reindeer', 'rhinoceros', 'rice', 'riga', 'riyadh', 'rosemary', 'saddle', 'saffron', 'sage', 'salamander', 'salmon', 'sanaa', 'santiago', 'saucer', 'savanna', 'scorpion', 'seoul', 'sextant', 'shanghai', 'sochi', 'sofia', 'sparrow', 'squirrel', 'starling', 'stockholm', 'summit', 'suva', 'swan', 'taipei', 'tambourine', 'tangerine', 'tapir', 'tbilisi', 'teapot', 'tehran', 'telescope', 'thyme', 'toad', 'tomato', 'tomsk', 'toronto', 'tortoise', 'toucan', 'trombone', 'trumpet', 'tuba', 'tundra', 'tunis', 'turin', 'turnip', 'valencia', 'victoria', 'vienna', 'violin', 'viper', 'vole', 'walnut', 'walrus', 'watermelon', 'weasel', 'windhoek', 'woodpecker', 'wren', 'xylophone', 'yak', 'yerevan', 'yew', 'yogyakarta', 'zebra', 'zucchini'])
FIXED = "Tool call rejected; nothing ran. Please check the tool name and the arguments against the registered tools and resend."


def _map(rec, live):
    if len(rec) != len(live):
        return None
    m, seen = {}, {}
    for a, b in zip(rec, live):
        if m.get(a, b) != b or seen.get(b, a) != a:
            return None
        m[a] = b
        seen[b] = a
    return m


def _tr(v, m):
    if isinstance(v, str):
        return TOKEN.sub(lambda x: m.get(x.group(), x.group()), v)
    if isinstance(v, list):
        return [_tr(i, m) for i in v]
    if isinstance(v, dict):
        return {_tr(k, m): _tr(i, m) for k, i in v.items()}
    return v


def _lookup(tools, raw):
    if not TABLE:
        return None
    try:
        if len(json.dumps(raw, default=str)) > 20000:
            return None
        for level, key, toks in readings(tools, raw, POOL, most=3):
            cands = []
            for e in TABLE.get(level[0] + "|" + key, []):
                m = _map(e["toks"], toks)
                if m is not None:
                    cands.append((e, m))
            if cands:
                votes = _co.Counter((e["dispatched"], len(e["asks"])) for e, _ in cands)
                best = votes.most_common(1)[0][0]
                for e, m in cands:
                    if (e["dispatched"], len(e["asks"])) == best:
                        return e, m
    except Exception:
        return None
    return None


def _call_of(text):
    if not isinstance(text, str):
        return None
    s = text.strip()
    for cand in (s, s[s.find("{"):s.rfind("}") + 1] if "{" in s else ""):
        try:
            c = json.loads(cand)
        except Exception:
            continue
        if isinstance(c, dict):
            return c
    return None


def _stub(raw, ask_model):
    try:
        ask_model(FIXED)
    except Exception:
        pass
    return {"status": "rejected", "error": FIXED}


def handle_tool_call(raw, ask_model):
    found = _lookup(TOOLS, raw)
    if found is None:
        return _stub(raw, ask_model)
    entry, m = found
    reply = raw
    try:
        for obs in entry["asks"]:
            reply = ask_model(_tr(obs, m))
    except Exception:
        return {"status": "rejected", "error": FIXED}
    result = _tr(entry["result"], m)
    if entry["dispatched"]:
        call = _call_of(reply) or {}
        name = result.get("tool") if isinstance(result, dict) and isinstance(result.get("tool"), str) else call.get("name")
        if name not in TOOLS and call.get("name") in TOOLS:
            name = call.get("name")
        args = call.get("arguments")
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except Exception:
                args = {}
        if not isinstance(args, dict):
            args = {}
        try:
            return dispatch(name, args)
        except Exception:
            return {"status": "rejected", "error": FIXED}
    return result
